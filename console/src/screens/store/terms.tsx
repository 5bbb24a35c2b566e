import { useState } from 'react';
import { Input, Label, SearchField } from 'react-aria-components';
import { Link } from 'wouter';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { useSearchState } from '../../api/search-state';
import { Confirm } from '../../ui/confirm';
import { TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { Time } from '../../ui/time';
import { StoreNav } from './store-nav';
import { storeIssues } from './store-issues';
import { CREATE_TERM, TERM_WORDS, TERMS_API, type Term, type TermKind } from './terms-api';

const PER_PAGE = 25;
const NEEDS_WRITE = 'Needs store.write';
const gamesWord = (count: number) => (count === 1 ? '1 game' : `${count.toLocaleString('en-GB')} games`);

/** One of the store's term lists (genres, developers, publishers): find, create, rename, delete. */
export default function TermsPage({ kind }: { kind: TermKind }) {
  const words = TERM_WORDS[kind];
  const [filters, setFilters] = useSearchState(['q', 'sort', 'page'] as const);
  const canWrite = usePermissions().can('store.write');
  const page = Number(filters.page || '1');
  const [field, direction] = (filters.sort || 'name:asc').split(':') as [string, 'asc' | 'desc'];
  const query = {
    ...(filters.q === '' ? {} : { q: filters.q }),
    sort: `${field}:${direction}`,
    page,
    per_page: PER_PAGE,
  };
  const terms = usePagedQuery(['store', kind, query], () => TERMS_API[kind].list(query));

  return (
    <section className="stack">
      <h1>Store</h1>
      <StoreNav />
      <header className="page-header">
        <h2>{words.title}</h2>
        <CreateTerm kind={kind} canWrite={canWrite} />
      </header>
      <form className="filters" aria-label={`Filter ${kind}`} onSubmit={(event) => event.preventDefault()}>
        <SearchField
          key={kind}
          className="field"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Name or slug contains</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
      </form>
      <PagedTable<Term>
        label={words.title}
        list={terms}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        sort={{ field, direction }}
        onSortChange={(sort) => setFilters({ sort: `${sort.field}:${sort.direction}` })}
        emptyText={filters.q === '' ? `No ${kind} yet.` : `No ${words.noun} matches “${filters.q}”.`}
        columns={[
          { id: 'name', name: 'Name', sortField: 'name', isRowHeader: true, render: (term) => term.name },
          { id: 'slug', name: 'Slug', render: (term) => <code>{term.slug}</code> },
          {
            id: 'games',
            name: 'Games',
            render: (term) =>
              term.game_count === 0 ? (
                'none'
              ) : (
                <Link href={`/store?${words.filter}=${term.id}`}>{gamesWord(term.game_count)}</Link>
              ),
          },
          {
            id: 'created',
            name: 'Created',
            sortField: 'created_at',
            render: (term) => <Time value={term.created_at} />,
          },
          {
            id: 'actions',
            name: 'Actions',
            render: (term) => (
              <span className="button-row">
                <RenameTerm kind={kind} term={term} canWrite={canWrite} />
                <DeleteTerm kind={kind} term={term} canWrite={canWrite} />
              </span>
            ),
          },
        ]}
      />
    </section>
  );
}

function CreateTerm({ kind, canWrite }: { kind: TermKind; canWrite: boolean }) {
  const words = TERM_WORDS[kind];
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const rule = (field: string) => ruleOf(CREATE_TERM[kind], field);
  return (
    <FormDialog<Term>
      title={`New ${words.noun}`}
      submitLabel={`Create ${words.noun}`}
      trigger={{
        label: `New ${words.noun}…`,
        className: 'btn btn-primary',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setName('');
        setSlug('');
      }}
      issuesOf={storeIssues}
      write={{
        call: () => TERMS_API[kind].create({ name: name.trim(), ...(slug.trim() === '' ? {} : { slug: slug.trim() }) }),
        success: (term) => `${words.title.slice(0, -1)} ${term.name} created`,
        failure: `Could not create the ${words.noun}`,
        invalidates: [['store', kind]],
      }}
    >
      <TextInput
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        isRequired
        minLength={rule('name').minLength}
        maxLength={rule('name').maxLength}
        description="Shown in the public store; unique regardless of case."
        autoFocus
      />
      <TextInput
        label="Slug (optional)"
        name="slug"
        value={slug}
        onChange={setSlug}
        maxLength={rule('slug').maxLength}
        pattern={{ source: '[a-z0-9][a-z0-9-]{0,63}', hint: 'Lower-case letters, digits and -, not all digits' }}
        description="Its part of public addresses; made from the name when left empty."
      />
    </FormDialog>
  );
}

function RenameTerm({ kind, term, canWrite }: { kind: TermKind; term: Term; canWrite: boolean }) {
  const words = TERM_WORDS[kind];
  const [name, setName] = useState(term.name);
  const [slug, setSlug] = useState(term.slug);
  const rule = (field: string) => ruleOf(CREATE_TERM[kind], field);
  const changes = {
    ...(name.trim() === term.name ? {} : { name: name.trim() }),
    ...(slug.trim() === term.slug ? {} : { slug: slug.trim() }),
  };
  return (
    <FormDialog<Term>
      title={`Rename ${term.name}`}
      submitLabel="Save"
      canSubmit={Object.keys(changes).length > 0}
      trigger={{
        label: 'Rename…',
        className: 'btn btn-quiet',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        setName(term.name);
        setSlug(term.slug);
      }}
      issuesOf={storeIssues}
      write={{
        call: () => TERMS_API[kind].rename(term.id, changes),
        success: (renamed) => `${term.name} is now ${renamed.name} (${renamed.slug})`,
        failure: `Could not rename the ${words.noun}`,
        invalidates: [['store', kind]],
      }}
    >
      <TextInput
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        isRequired
        minLength={rule('name').minLength}
        maxLength={rule('name').maxLength}
        autoFocus
      />
      <TextInput
        label="Slug"
        name="slug"
        value={slug}
        onChange={setSlug}
        isRequired
        maxLength={rule('slug').maxLength}
        pattern={{ source: '[a-z0-9][a-z0-9-]{0,63}', hint: 'Lower-case letters, digits and -, not all digits' }}
        description="Slugs are in public addresses: a renamed one keeps its slug unless you change it here."
      />
    </FormDialog>
  );
}

function DeleteTerm({ kind, term, canWrite }: { kind: TermKind; term: Term; canWrite: boolean }) {
  const words = TERM_WORDS[kind];
  return (
    <Confirm
      trigger="Delete…"
      destructive
      isDisabled={!canWrite}
      disabledReason={canWrite ? undefined : NEEDS_WRITE}
      title={`Delete the ${words.noun} ${term.name}?`}
      consequence={
        term.game_count === 0
          ? `No game links to ${term.name}. Its name and its address in the store (${term.slug}) go away. This cannot be undone.`
          : `${gamesWord(term.game_count)} ${term.game_count === 1 ? 'loses its' : 'lose their'} link to ${term.name} and ` +
            `${term.game_count === 1 ? 'stays' : 'stay'} in the store; its name and its address in the store ` +
            `(${term.slug}) go away. This cannot be undone.`
      }
      confirmLabel={`Delete ${words.noun}`}
      write={{
        call: () => TERMS_API[kind].remove(term.id),
        success: `${term.name} deleted`,
        failure: `Could not delete the ${words.noun}`,
        invalidates: [
          ['store', kind],
          ['store', 'games'],
        ],
      }}
    />
  );
}
