import { unwrap } from '@platform-api/sdk';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Dialog, DialogTrigger, Form, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useLocation } from 'wouter';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { describeProblem } from '../../api/problems';
import { useSearchState } from '../../api/search-state';
import { DataTable, Pager } from '../../ui/data-table';
import { TextInput } from '../../ui/fields';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { notify } from '../../ui/toasts';
import { SiteNav } from './site-nav';

const PER_PAGE = 25;
const CREATE = 'POST /v1/admin/site/pages';

/** The site's pages: what is live of each, and a new page. */
export default function PagesPage() {
  const permissions = usePermissions();
  const [, navigate] = useLocation();
  const [filters, setFilters] = useSearchState(['page'] as const);
  const page = Number(filters.page || '1');
  const query = { page, per_page: PER_PAGE, sort: 'updated_at:desc' };
  const pages = useQuery({
    queryKey: ['site', 'pages', query],
    queryFn: () => unwrap(api.GET('/v1/admin/site/pages', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="stack">
      <h1>Site</h1>
      <SiteNav />
      <header className="page-header">
        <h2>Pages</h2>
        <CreatePage canWrite={permissions.can('site.write')} onCreated={(id) => navigate(`/site/pages/${id}`)} />
      </header>
      {pages.error === null ? null : <ProblemNote error={pages.error} />}
      <DataTable
        label="Pages"
        items={pages.data?.data ?? []}
        onRowAction={(id) => navigate(`/site/pages/${id}`)}
        emptyText={pages.isPending ? 'Loading…' : 'No pages.'}
        columns={[
          { id: 'title', name: 'Title', isRowHeader: true, render: (each) => each.title },
          { id: 'slug', name: 'Address', render: (each) => <code>/{each.slug}</code> },
          {
            id: 'live',
            name: 'Live',
            render: (each) => (each.published_version === null ? 'unpublished' : `v${each.published_version}`),
          },
          {
            id: 'latest',
            name: 'Latest version',
            render: (each) => (each.latest_version === null ? '—' : `v${each.latest_version}`),
          },
          { id: 'updated', name: 'Updated', render: (each) => <Time value={each.updated_at} /> },
        ]}
      />
      {pages.data === undefined ? null : (
        <Pager
          page={page}
          perPage={PER_PAGE}
          total={pages.data.meta.total ?? 0}
          onPage={(next) => setFilters({ page: String(next) })}
        />
      )}
    </section>
  );
}

function CreatePage({ canWrite, onCreated }: { canWrite: boolean; onCreated: (id: string) => void }) {
  const queryClient = useQueryClient();
  const [slug, setSlug] = useState('');
  const [title, setTitle] = useState('');
  const [fields, setFields] = useState<Record<string, string>>({});
  const slugRule = ruleOf(CREATE, 'slug');
  return (
    <DialogTrigger>
      <Button className="btn btn-primary" isDisabled={!canWrite}>
        New page…
      </Button>
      {canWrite ? null : <span className="hint">Needs site.write</span>}
      <ModalOverlay className="overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <Form
                validationErrors={fields}
                onSubmit={async (event) => {
                  event.preventDefault();
                  setFields({});
                  try {
                    const made = await unwrap(
                      api.POST('/v1/admin/site/pages', { body: { slug: slug.trim(), title: title.trim() } }),
                    );
                    notify.success(`Page /${slug.trim()} created`);
                    await queryClient.invalidateQueries({ queryKey: ['site', 'pages'] });
                    close();
                    onCreated(made.id);
                  } catch (error) {
                    setFields(describeProblem(error).fields);
                    notify.failure('Could not create the page', error);
                  }
                }}
              >
                <Heading slot="title">New page</Heading>
                <TextInput
                  label="Address"
                  name="slug"
                  value={slug}
                  onChange={setSlug}
                  isRequired
                  pattern={
                    slugRule.pattern === undefined
                      ? undefined
                      : { source: slugRule.pattern, hint: 'Lower-case letters, digits and hyphens.' }
                  }
                  error={fields.slug}
                  autoFocus
                />
                <TextInput
                  label="Title"
                  name="title"
                  value={title}
                  onChange={setTitle}
                  isRequired
                  maxLength={ruleOf(CREATE, 'title').maxLength}
                  error={fields.title}
                />
                <div className="dialog-actions">
                  <Button className="btn" onPress={close}>
                    Cancel
                  </Button>
                  <Button type="submit" className="btn btn-primary">
                    Create page
                  </Button>
                </div>
              </Form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
