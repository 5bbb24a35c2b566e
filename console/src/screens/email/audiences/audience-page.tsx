import { type ListBody, type ListItem, type operations, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Input, Label, SearchField } from 'react-aria-components';
import { Link, useLocation } from 'wouter';
import { api } from '../../../api/client';
import { usePermissions } from '../../../api/permissions';
import { presentValues, useSearchState } from '../../../api/search-state';
import { useWrite } from '../../../api/writes';
import { Confirm } from '../../../ui/confirm';
import { ChoiceInput } from '../../../ui/fields';
import { UserLink } from '../../../ui/names';
import { PagedTable, usePagedQuery } from '../../../ui/paged-table';
import { ProblemNote } from '../../../ui/problem-note';
import { Time } from '../../../ui/time';
import { EmailNav } from '../email-nav';
import { type Audience, DeleteAudience, EditAudience, NEEDS_WRITE } from './audience-dialogs';
import { UploadMembers } from './upload-members';
import './audiences.css';

type Member = ListItem<ListBody<'/v1/admin/email/audiences/{id}/members'>>;
type MembersQuery = NonNullable<operations['listEmailAudienceMembers']['parameters']['query']>;
const FILTERS = ['q', 'mailable', 'page'] as const;
const PER_PAGE = 25;
const number = (value: number) => value.toLocaleString('en-GB');

const whyNot = (member: Member) =>
  member.mailable
    ? 'yes'
    : [
        member.suppression_reason === null ? undefined : `no: ${member.suppression_reason}`,
        member.user_status === 'banned' || member.user_status === 'deleted'
          ? `no: account ${member.user_status}`
          : undefined,
      ]
        .filter((reason) => reason !== undefined)
        .join(', ') || 'no';

/** One audience: who would be mailed now, its members, and the CSV upload that replaces them. */
export default function AudiencePage({ id }: { id: string }) {
  const [, navigate] = useLocation();
  const canWrite = usePermissions().can('email.write');
  const audience = useQuery({
    queryKey: ['email', 'audience', id],
    queryFn: () => unwrap(api.GET('/v1/admin/email/audiences/{id}', { params: { path: { id } } })),
  });
  if (audience.error !== null)
    return (
      <section className="stack">
        <Link href="/email/audiences">← Audiences</Link>
        <ProblemNote error={audience.error} />
      </section>
    );
  if (audience.data === undefined) return <p className="loading">Loading…</p>;
  const current = audience.data;
  return (
    <section className="stack">
      <h1>Email</h1>
      <EmailNav />
      <Link href="/email/audiences">← Audiences</Link>
      <header className="page-header">
        <h2>{current.name}</h2>
        <EditAudience audience={current} canWrite={canWrite} />
        <DeleteAudience audience={current} canWrite={canWrite} onDeleted={() => navigate('/email/audiences')} />
      </header>
      {current.description === null ? null : <p>{current.description}</p>}
      <div className="email-card-columns">
        <PreviewCount audience={current} />
        <UploadMembers audience={current} canWrite={canWrite} />
      </div>
      <Members audience={current} canWrite={canWrite} />
    </section>
  );
}

function PreviewCount({ audience }: { audience: Audience }) {
  const count = useQuery({
    queryKey: ['email', 'audience', audience.id, 'preview-count', audience.updated_at],
    queryFn: () =>
      unwrap(api.GET('/v1/admin/email/audiences/{id}/preview-count', { params: { path: { id: audience.id } } })),
  });
  return (
    <section className="card stack-tight" aria-labelledby="preview-count-heading">
      <h3 id="preview-count-heading">Who a campaign would mail now</h3>
      {count.error !== null ? <ProblemNote error={count.error} /> : null}
      {count.data === undefined ? (
        <p className="loading">Counting…</p>
      ) : (
        <>
          <p className="email-figure" data-testid="mailable-count">
            {number(count.data.mailable)} of {number(count.data.total)} mailable
          </p>
          <dl className="facts">
            <dt>Members</dt>
            <dd>{number(count.data.total)}</dd>
            <dt>Suppressed (unsubscribed, bounced, …)</dt>
            <dd>{number(count.data.suppressed)}</dd>
            <dt>Account deleted or banned</dt>
            <dd>{number(count.data.deleted_users)}</dd>
          </dl>
          <p className="muted">
            Counted now: an unsubscribe shows at once. Last change <Time value={audience.updated_at} />.
          </p>
        </>
      )}
    </section>
  );
}

function Members({ audience, canWrite }: { audience: Audience; canWrite: boolean }) {
  const [filters, setFilters] = useSearchState(FILTERS);
  const page = Number(filters.page || '1');
  const query = {
    ...presentValues({ q: filters.q, mailable: filters.mailable }),
    page,
    per_page: PER_PAGE,
  } as MembersQuery;
  const members = usePagedQuery(['email', 'audience', audience.id, 'members', query], () =>
    unwrap(api.GET('/v1/admin/email/audiences/{id}/members', { params: { path: { id: audience.id }, query } })),
  );
  return (
    <section className="stack" aria-labelledby="members-heading">
      <h3 id="members-heading">Members ({number(audience.member_count)})</h3>
      <form className="filters" aria-label="Filter members" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Address contains</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
        <ChoiceInput
          label="Mailable"
          value={filters.mailable}
          choices={[
            { id: '', label: 'Any' },
            { id: 'true', label: 'Mailable now' },
            { id: 'false', label: 'Not mailable' },
          ]}
          onChange={(mailable) => setFilters({ mailable })}
        />
      </form>
      <PagedTable<Member>
        label="Members"
        list={members}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        emptyText={
          filters.q === '' && filters.mailable === ''
            ? 'No members yet: upload a CSV file.'
            : 'No member matches these filters.'
        }
        columns={[
          { id: 'email', name: 'Address', isRowHeader: true, render: (member) => member.email },
          {
            id: 'account',
            name: 'Account',
            render: (member) =>
              member.user_id === null ? (
                'none'
              ) : (
                <span>
                  <UserLink id={member.user_id} label={member.email} />
                  {member.user_status === 'active' ? null : ` (${member.user_status})`}
                </span>
              ),
          },
          { id: 'mailable', name: 'Mailable now', render: whyNot },
          { id: 'joined', name: 'Joined', render: (member) => <Time value={member.created_at} /> },
          {
            id: 'actions',
            name: 'Actions',
            render: (member) => <RemoveMember audience={audience} member={member} canWrite={canWrite} />,
          },
        ]}
      />
    </section>
  );
}

function RemoveMember({ audience, member, canWrite }: { audience: Audience; member: Member; canWrite: boolean }) {
  const remove = useWrite({
    call: () =>
      unwrap(
        api.DELETE('/v1/admin/email/audiences/{id}/members/{memberId}', {
          params: { path: { id: audience.id, memberId: member.id } },
        }),
      ),
    success: `${member.email} removed from ${audience.name}`,
    failure: 'Could not remove the member',
    invalidates: [
      ['email', 'audience', audience.id],
      ['email', 'audiences'],
    ],
  });
  return (
    <Confirm
      trigger="Remove…"
      isDisabled={!canWrite}
      disabledReason={canWrite ? undefined : NEEDS_WRITE}
      title={`Remove ${member.email}?`}
      consequence={
        `${member.email} leaves ${audience.name}: campaigns launched to it from now on do not mail this address. ` +
        `Campaigns already launched still send to it. To add it back, upload a file that holds it.`
      }
      confirmLabel="Remove member"
      write={{ call: () => remove.mutateAsync() }}
    />
  );
}
