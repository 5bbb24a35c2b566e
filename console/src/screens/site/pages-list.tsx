import { unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { useSearchState } from '../../api/search-state';
import { TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { Time } from '../../ui/time';
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
  const pages = usePagedQuery(['site', 'pages', query], () =>
    unwrap(api.GET('/v1/admin/site/pages', { params: { query } })),
  );
  return (
    <section className="stack">
      <h1>Site</h1>
      <SiteNav />
      <header className="page-header">
        <h2>Pages</h2>
        <CreatePage canWrite={permissions.can('site.write')} onCreated={(id) => navigate(`/site/pages/${id}`)} />
      </header>
      <PagedTable
        label="Pages"
        list={pages}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        rowHref={(each) => `/site/pages/${each.id}`}
        emptyText="No pages."
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
    </section>
  );
}

function CreatePage({ canWrite, onCreated }: { canWrite: boolean; onCreated: (id: string) => void }) {
  const [slug, setSlug] = useState('');
  const [title, setTitle] = useState('');
  const slugRule = ruleOf(CREATE, 'slug');
  return (
    <FormDialog
      title="New page"
      submitLabel="Create page"
      trigger={{
        label: 'New page…',
        className: 'btn btn-primary',
        isDisabled: !canWrite,
        disabledReason: 'Needs site.write',
      }}
      onOpen={() => {
        setSlug('');
        setTitle('');
      }}
      write={{
        call: () => unwrap(api.POST('/v1/admin/site/pages', { body: { slug: slug.trim(), title: title.trim() } })),
        success: `Page /${slug.trim()} created`,
        failure: 'Could not create the page',
        invalidates: [['site', 'pages']],
        onDone: (made) => onCreated(made.id),
      }}
    >
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
        autoFocus
      />
      <TextInput
        label="Title"
        name="title"
        value={title}
        onChange={setTitle}
        isRequired
        maxLength={ruleOf(CREATE, 'title').maxLength}
      />
    </FormDialog>
  );
}
