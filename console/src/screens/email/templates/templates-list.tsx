import { type ListBody, type ListItem, type operations, unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Input, Label, SearchField } from 'react-aria-components';
import { useLocation } from 'wouter';
import { api } from '../../../api/client';
import { ruleOf } from '../../../api/field-rules';
import { usePermissions } from '../../../api/permissions';
import { presentValues, useSearchState } from '../../../api/search-state';
import type { Sort } from '../../../ui/data-table';
import { ChoiceInput, TextInput } from '../../../ui/fields';
import { FormDialog } from '../../../ui/form-dialog';
import { PagedTable, usePagedQuery } from '../../../ui/paged-table';
import { Time } from '../../../ui/time';
import { EmailNav } from '../email-nav';
import { CATEGORIES, NEEDS_WRITE, publishedLabel } from './template-words';

type Template = ListItem<ListBody<'/v1/admin/email/templates'>>;
type TemplatesQuery = NonNullable<operations['listEmailTemplates']['parameters']['query']>;

const FILTERS = ['q', 'category', 'published', 'sort', 'page'] as const;
const PER_PAGE = 25;
const CREATE = 'POST /v1/admin/email/templates';

/** The email templates: search, filter, sort, and create one (its versions are written on its page). */
export default function TemplatesPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const canWrite = usePermissions().can('email.write');
  const page = Number(filters.page || '1');
  const [sortField, sortDirection] = (filters.sort || 'updated_at:desc').split(':');
  const sort: Sort = { field: sortField ?? 'updated_at', direction: sortDirection === 'asc' ? 'asc' : 'desc' };
  const query = {
    ...presentValues({ q: filters.q, category: filters.category, published: filters.published, sort: filters.sort }),
    page,
    per_page: PER_PAGE,
  } as TemplatesQuery;
  const templates = usePagedQuery(['email', 'templates', query], () =>
    unwrap(api.GET('/v1/admin/email/templates', { params: { query } })),
  );
  const filtered = filters.q !== '' || filters.category !== '' || filters.published !== '';

  return (
    <section className="stack">
      <h1>Email</h1>
      <EmailNav />
      <header className="page-header">
        <h2>Templates</h2>
        <CreateTemplate canWrite={canWrite} />
      </header>
      <form className="filters" aria-label="Filter templates" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Key or name contains</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
        <ChoiceInput
          label="Category"
          value={filters.category}
          choices={[{ id: '', label: 'Any' }, ...CATEGORIES]}
          onChange={(category) => setFilters({ category })}
        />
        <ChoiceInput
          label="Published"
          value={filters.published}
          choices={[
            { id: '', label: 'Any' },
            { id: 'true', label: 'Published' },
            { id: 'false', label: 'Not published' },
          ]}
          onChange={(published) => setFilters({ published })}
        />
      </form>
      <PagedTable<Template>
        label="Email templates"
        list={templates}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        sort={sort}
        onSortChange={(next) => setFilters({ sort: `${next.field}:${next.direction}` })}
        emptyText={filtered ? 'No template matches these filters.' : 'No templates yet.'}
        rowHref={(template) => `/email/templates/${template.key}`}
        columns={[
          { id: 'name', name: 'Name', sortField: 'name', isRowHeader: true, render: (template) => template.name },
          { id: 'key', name: 'Key', sortField: 'key', render: (template) => <code>{template.key}</code> },
          { id: 'category', name: 'Category', render: (template) => template.category },
          { id: 'published', name: 'Published', render: (template) => publishedLabel(template.published_version) },
          {
            id: 'latest',
            name: 'Newest version',
            render: (template) => (template.latest_version === null ? 'none yet' : `v${template.latest_version}`),
          },
          {
            id: 'updated',
            name: 'Changed',
            sortField: 'updated_at',
            render: (template) => <Time value={template.updated_at} />,
          },
        ]}
      />
    </section>
  );
}

function CreateTemplate({ canWrite }: { canWrite: boolean }) {
  const [, navigate] = useLocation();
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [category, setCategory] = useState('marketing');
  const rule = (field: string) => ruleOf(CREATE, field);
  return (
    <FormDialog<{ key: string; name: string }>
      title="New email template"
      submitLabel="Create template"
      trigger={{
        label: 'New template…',
        className: 'btn btn-primary',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setKey('');
        setName('');
        setDescription('');
        setCategory('marketing');
      }}
      write={{
        call: () =>
          unwrap(
            api.POST('/v1/admin/email/templates', {
              body: {
                key: key.trim(),
                name: name.trim(),
                category: category as 'marketing' | 'transactional',
                ...(description.trim() === '' ? {} : { description: description.trim() }),
              },
            }),
          ),
        success: (made) => `Template ${made.name} created: write its first version`,
        failure: 'Could not create the template',
        invalidates: [['email', 'templates']],
        onDone: (made) => navigate(`/email/templates/${made.key}`),
      }}
    >
      <TextInput
        label="Key"
        name="key"
        value={key}
        onChange={(value) => setKey(value.toLowerCase())}
        isRequired
        pattern={{
          source: rule('key').pattern ?? '[a-z][a-z0-9-]{1,63}',
          hint: '2 to 64 lowercase letters, digits or -, starting with a letter',
        }}
        description="How campaigns, broadcasts and the service name it (welcome-mail); it cannot change later."
        autoFocus
      />
      <TextInput
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        isRequired
        minLength={rule('name').minLength}
        maxLength={rule('name').maxLength}
      />
      <TextInput
        label="Description (optional)"
        name="description"
        value={description}
        onChange={setDescription}
        maxLength={rule('description').maxLength}
        multiline
      />
      <ChoiceInput label="Category" value={category} choices={CATEGORIES} onChange={setCategory} />
    </FormDialog>
  );
}
