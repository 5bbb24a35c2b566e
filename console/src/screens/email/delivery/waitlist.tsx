import { type ListBody, type ListItem, type operations, unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Button, Input, Label, SearchField } from 'react-aria-components';
import { api } from '../../../api/client';
import { presentValues, useSearchState } from '../../../api/search-state';
import { useWrite } from '../../../api/writes';
import type { Sort } from '../../../ui/data-table';
import { LongText } from '../../../ui/long-text';
import { PagedTable, usePagedQuery } from '../../../ui/paged-table';
import { Time } from '../../../ui/time';
import { EmailNav } from '../email-nav';
import { csvOf, downloadText } from './csv';

type Signup = ListItem<ListBody<'/v1/admin/email/waitlist'>> & { id: string };
type WaitlistQuery = NonNullable<operations['listWaitlistSignups']['parameters']['query']>;

const FILTERS = ['q', 'source', 'sort', 'page'] as const;
const PER_PAGE = 25;
/** The API's largest page: the download reads the list in pages of this size. */
const DOWNLOAD_PAGE = 100;
const CSV_HEADER = ['email', 'source', 'referrer', 'ip', 'created_at'];

/** Everyone on the waitlist, searchable, and the whole list (as filtered) as a CSV file. */
export default function WaitlistPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const page = Number(filters.page || '1');
  const [sortField, sortDirection] = (filters.sort || 'created_at:desc').split(':');
  const sort: Sort = { field: sortField ?? 'created_at', direction: sortDirection === 'asc' ? 'asc' : 'desc' };
  const base = presentValues({ q: filters.q, source: filters.source, sort: filters.sort }) as WaitlistQuery;
  const query = { ...base, page, per_page: PER_PAGE } as WaitlistQuery;
  const signups = usePagedQuery(['email', 'waitlist', query], async () => {
    const answer = await unwrap(api.GET('/v1/admin/email/waitlist', { params: { query } }));
    return { ...answer, data: answer.data.map((row) => ({ ...row, id: row.email })) };
  });
  const [progress, setProgress] = useState<{ read: number; total: number } | undefined>();
  const download = useWrite({
    call: async () => {
      const rows: Array<Array<string | null>> = [];
      let total = 0;
      for (let next = 1; ; next += 1) {
        const answer = await unwrap(
          api.GET('/v1/admin/email/waitlist', { params: { query: { ...base, page: next, per_page: DOWNLOAD_PAGE } } }),
        );
        total = answer.meta.total ?? rows.length + answer.data.length;
        for (const row of answer.data) rows.push([row.email, row.source, row.referrer, row.ip, row.created_at]);
        setProgress({ read: rows.length, total });
        if (answer.data.length < DOWNLOAD_PAGE || rows.length >= total) break;
      }
      const day = new Date().toISOString().slice(0, 10);
      downloadText(csvOf(CSV_HEADER, rows), `waitlist-${day}.csv`);
      return rows.length;
    },
    success: (count) => `Downloaded ${count === 1 ? 'one signup' : `${count} signups`}`,
    failure: 'Could not download the waitlist',
    onDone: () => setProgress(undefined),
  });
  const total = signups.data?.meta.total ?? 0;
  const filtered = filters.q !== '' || filters.source !== '';

  return (
    <section className="stack">
      <h1>Email</h1>
      <EmailNav />
      <header className="page-header">
        <h2>Waitlist</h2>
        <Button
          className="btn btn-primary"
          isDisabled={download.isPending || total === 0}
          onPress={() => {
            setProgress(undefined);
            download.mutate();
          }}
        >
          {download.isPending ? 'Downloading…' : filtered ? 'Download these as CSV' : 'Download CSV'}
        </Button>
        <span className="muted" role="status">
          {progress === undefined || !download.isPending ? '' : `Read ${progress.read} of ${progress.total}`}
        </span>
      </header>
      <form className="filters" aria-label="Filter signups" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Address contains</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
        <SearchField
          className="field"
          defaultValue={filters.source}
          onSubmit={(value) => setFilters({ source: value.trim() })}
          onClear={() => setFilters({ source: '' })}
        >
          <Label>Source (exactly)</Label>
          <Input placeholder="landing-hero" />
        </SearchField>
      </form>
      <PagedTable<Signup>
        label="Waitlist signups"
        list={signups}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        sort={sort}
        onSortChange={(next) => setFilters({ sort: `${next.field}:${next.direction}` })}
        emptyText={filtered ? 'No signup matches these filters.' : 'No one has signed up yet.'}
        columns={[
          { id: 'email', name: 'Address', sortField: 'email', isRowHeader: true, render: (row) => row.email },
          { id: 'source', name: 'Source', render: (row) => row.source ?? '' },
          { id: 'referrer', name: 'Referred by', render: (row) => <LongText value={row.referrer} /> },
          { id: 'when', name: 'Signed up', sortField: 'created_at', render: (row) => <Time value={row.created_at} /> },
        ]}
      />
    </section>
  );
}
