import { type operations, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Switch } from 'react-aria-components';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { presentValues, useSearchState } from '../../api/search-state';
import { DataTable } from '../../ui/data-table';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { ProblemNote } from '../../ui/problem-note';
import { NEEDS_WRITE } from './catalog';
import { PlansNav } from './plans-nav';

type Ruleset = operations['listPlanRulesets']['responses']['200']['content']['application/json']['data'][number];
type Tier = operations['listPlanTiers']['responses']['200']['content']['application/json']['data'][number];

const UPSERT_RULESET = 'PUT /v1/admin/plans/rulesets';
const UPSERT_TIER = 'PUT /v1/admin/plans/tiers';
const FILTERS = ['rulesetKey'] as const;

/** Tiers (what a plan gives) and the rulesets behind them (the limits the session service reads). */
export default function TiersPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const canWrite = usePermissions().can('plans.write');
  const rulesets = useQuery({
    queryKey: ['plans', 'rulesets'],
    queryFn: () => unwrap(api.GET('/v1/admin/plans/rulesets')),
  });
  const tierQuery = presentValues({ rulesetKey: filters.rulesetKey });
  const tiers = useQuery({
    queryKey: ['plans', 'tiers', tierQuery],
    queryFn: () => unwrap(api.GET('/v1/admin/plans/tiers', { params: { query: tierQuery } })),
  });
  const rulesetList = rulesets.data?.data ?? [];
  const rulesetNames = new Map(rulesetList.map((ruleset) => [ruleset.key, ruleset.name]));
  // Keys already used: a new one with the same key would replace it (the API upserts by key).
  const allTiers = useQuery({
    queryKey: ['plans', 'tiers', 'all'],
    queryFn: () => unwrap(api.GET('/v1/admin/plans/tiers')),
  });
  const takenTierKeys = new Set((allTiers.data?.data ?? []).map((tier) => tier.key));
  const takenRulesetKeys = new Set(rulesetList.map((ruleset) => ruleset.key));

  return (
    <section className="stack">
      <h1>Plans</h1>
      <PlansNav />
      <header className="page-header">
        <h2>Tiers</h2>
        <TierEditor canWrite={canWrite} rulesets={rulesetList} taken={takenTierKeys} />
      </header>
      <p className="hint">A plan gives its subscribers a tier; a tier plays by its ruleset's limits.</p>
      <form className="filters" aria-label="Filter tiers" onSubmit={(event) => event.preventDefault()}>
        <ChoiceInput
          label="Of ruleset"
          value={filters.rulesetKey}
          choices={[
            { id: '', label: 'Any' },
            ...rulesetList.map((ruleset) => ({ id: ruleset.key, label: ruleset.name })),
          ]}
          onChange={(rulesetKey) => setFilters({ rulesetKey })}
        />
      </form>
      {tiers.error !== null ? <ProblemNote error={tiers.error} /> : null}
      {tiers.data === undefined && tiers.error === null ? <p className="loading">Loading…</p> : null}
      {tiers.data === undefined ? null : (
        <DataTable<Tier>
          label="Tiers"
          items={tiers.data.data}
          emptyText={filters.rulesetKey === '' ? 'No tiers yet.' : 'No tier uses this ruleset.'}
          columns={[
            { id: 'rank', name: 'Rank', render: (tier) => tier.rank },
            { id: 'name', name: 'Tier', isRowHeader: true, render: (tier) => tier.name },
            { id: 'key', name: 'Key', render: (tier) => <code>{tier.key}</code> },
            {
              id: 'ruleset',
              name: 'Ruleset',
              render: (tier) => rulesetNames.get(tier.rulesetKey) ?? tier.rulesetKey,
            },
            { id: 'description', name: 'Description', long: true, render: (tier) => tier.description ?? '' },
            {
              id: 'actions',
              name: 'Actions',
              render: (tier) => (
                <TierEditor canWrite={canWrite} rulesets={rulesetList} tier={tier} taken={takenTierKeys} />
              ),
            },
          ]}
        />
      )}

      <header className="page-header">
        <h2>Rulesets</h2>
        <RulesetEditor canWrite={canWrite} taken={takenRulesetKeys} />
      </header>
      {rulesets.error !== null ? <ProblemNote error={rulesets.error} /> : null}
      {rulesets.data === undefined ? null : (
        <DataTable<Ruleset>
          label="Rulesets"
          items={rulesetList}
          emptyText="No rulesets yet."
          columns={[
            { id: 'name', name: 'Ruleset', isRowHeader: true, render: (ruleset) => ruleset.name },
            { id: 'key', name: 'Key', render: (ruleset) => <code>{ruleset.key}</code> },
            { id: 'limits', name: 'Limits', render: (ruleset) => <LimitList limits={ruleset.limits} /> },
            { id: 'tiers', name: 'Tiers using it', render: (ruleset) => ruleset.tierCount },
            {
              id: 'state',
              name: 'Status',
              render: (ruleset) =>
                ruleset.isActive ? (
                  <span className="status status-active">active</span>
                ) : (
                  <span className="status">inactive</span>
                ),
            },
            {
              id: 'actions',
              name: 'Actions',
              render: (ruleset) => <RulesetEditor canWrite={canWrite} ruleset={ruleset} taken={takenRulesetKeys} />,
            },
          ]}
        />
      )}
    </section>
  );
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function LimitList({ limits }: { limits: Record<string, unknown> }) {
  const entries = Object.entries(limits);
  if (entries.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="plans-prices">
      {entries.map(([key, value]) => (
        <li key={key}>
          <code>{key}</code>: {shown(value)}
        </li>
      ))}
    </ul>
  );
}

function TierEditor({
  canWrite,
  rulesets,
  tier,
  taken,
}: {
  canWrite: boolean;
  rulesets: Ruleset[];
  tier?: Tier;
  taken: Set<string>;
}) {
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [rank, setRank] = useState('');
  const [rulesetKey, setRulesetKey] = useState('');
  const [description, setDescription] = useState('');
  const rule = (field: string) => ruleOf(UPSERT_TIER, field);
  const blocked = !canWrite ? NEEDS_WRITE : rulesets.length === 0 ? 'Create a ruleset first' : undefined;
  return (
    <FormDialog<unknown>
      title={tier === undefined ? 'New tier' : `Edit the tier ${tier.name}`}
      submitLabel={tier === undefined ? 'Create tier' : 'Save tier'}
      canSubmit={rulesetKey !== '' && !(tier === undefined && taken.has(key.trim()))}
      trigger={{
        label: tier === undefined ? 'New tier…' : 'Edit…',
        className: tier === undefined ? 'btn btn-primary' : 'btn',
        isDisabled: blocked !== undefined,
        disabledReason: blocked,
      }}
      onOpen={() => {
        setKey(tier?.key ?? '');
        setName(tier?.name ?? '');
        setRank(tier === undefined ? '' : String(tier.rank));
        setRulesetKey(tier?.rulesetKey ?? rulesets[0]?.key ?? '');
        setDescription(tier?.description ?? '');
      }}
      write={{
        call: () =>
          unwrap(
            api.PUT('/v1/admin/plans/tiers', {
              body: {
                key: key.trim(),
                name,
                rank: Number(rank),
                rulesetKey,
                ...(description.trim() === '' ? {} : { description: description.trim() }),
              },
            }),
          ),
        success: `Tier ${name.trim()} saved`,
        failure: 'Could not save the tier',
        invalidates: [
          ['plans', 'tiers'],
          ['plans', 'rulesets'],
        ],
      }}
    >
      {tier === undefined ? (
        <TextInput
          label="Key"
          name="key"
          value={key}
          onChange={setKey}
          isRequired
          pattern={{
            source: rule('key').pattern ?? '[a-z][a-z0-9_-]{0,31}',
            hint: 'Lowercase letters, digits, _ or -, starting with a letter (at most 32)',
          }}
          description="Plans and players refer to the tier by it; it cannot change later."
          error={taken.has(key.trim()) ? 'A tier has this key: edit that tier instead' : undefined}
          autoFocus
        />
      ) : (
        <p>
          Key <code>{tier.key}</code> (fixed)
        </p>
      )}
      <TextInput
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        isRequired
        maxLength={rule('name').maxLength}
        autoFocus={tier !== undefined}
      />
      <div className="inline-form">
        <TextInput
          label="Rank"
          name="rank"
          type="number"
          integer
          value={rank}
          onChange={setRank}
          isRequired
          minimum={rule('rank').minimum}
          maximum={rule('rank').maximum}
          description="Lowest first."
        />
        <ChoiceInput
          label="Ruleset"
          value={rulesetKey}
          choices={rulesets.map((ruleset) => ({ id: ruleset.key, label: ruleset.name }))}
          onChange={setRulesetKey}
        />
      </div>
      <TextInput
        label="Description (optional)"
        name="description"
        value={description}
        onChange={setDescription}
        multiline
        maxLength={rule('description').maxLength}
      />
    </FormDialog>
  );
}

type LimitKind = 'number' | 'text' | 'boolean' | 'json';
interface LimitRow {
  id: number;
  key: string;
  kind: LimitKind;
  value: string;
}
const LIMIT_KINDS = [
  { id: 'number', label: 'Number' },
  { id: 'text', label: 'Text' },
  { id: 'boolean', label: 'Yes or no' },
  { id: 'json', label: 'Other (JSON)' },
];

const rowOf = (id: number, key: string, value: unknown): LimitRow =>
  typeof value === 'number'
    ? { id, key, kind: 'number', value: String(value) }
    : typeof value === 'string'
      ? { id, key, kind: 'text', value }
      : typeof value === 'boolean'
        ? { id, key, kind: 'boolean', value: String(value) }
        : { id, key, kind: 'json', value: JSON.stringify(value) };

/** The row's value as the API takes it, or a message saying what is wrong with it. */
function limitValue(row: LimitRow): { value: unknown } | { problem: string } {
  if (row.kind === 'text') return { value: row.value };
  if (row.kind === 'boolean') return { value: row.value === 'true' };
  if (row.kind === 'number')
    return row.value.trim() !== '' && Number.isFinite(Number(row.value))
      ? { value: Number(row.value) }
      : { problem: 'A number, such as 60' };
  try {
    return { value: JSON.parse(row.value) };
  } catch {
    return { problem: 'Not valid JSON' };
  }
}

function RulesetEditor({ canWrite, ruleset, taken }: { canWrite: boolean; ruleset?: Ruleset; taken: Set<string> }) {
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [isActive, setActive] = useState(true);
  const [rows, setRows] = useState<LimitRow[]>([]);
  const [nextId, setNextId] = useState(0);
  const rule = (field: string) => ruleOf(UPSERT_RULESET, field);
  const keyCounts = new Map<string, number>();
  for (const row of rows) keyCounts.set(row.key.trim(), (keyCounts.get(row.key.trim()) ?? 0) + 1);
  const rowProblems = rows.map((row) => ({
    key:
      row.key.trim() === ''
        ? 'Name the limit'
        : (keyCounts.get(row.key.trim()) ?? 0) > 1
          ? 'Each limit once'
          : undefined,
    value: (() => {
      const parsed = limitValue(row);
      return 'problem' in parsed ? parsed.problem : undefined;
    })(),
  }));
  const limitsOk = rowProblems.every((problem) => problem.key === undefined && problem.value === undefined);
  const change = (id: number, patch: Partial<LimitRow>) =>
    setRows((all) => all.map((row) => (row.id === id ? { ...row, ...patch } : row)));
  const label = ruleset === undefined ? '' : ruleset.name;

  return (
    <FormDialog<{ id: string }>
      title={ruleset === undefined ? 'New ruleset' : `Edit the ruleset ${label}`}
      submitLabel={ruleset === undefined ? 'Create ruleset' : 'Save ruleset'}
      wide
      canSubmit={limitsOk && !(ruleset === undefined && taken.has(key.trim()))}
      trigger={{
        label: ruleset === undefined ? 'New ruleset…' : 'Edit…',
        className: ruleset === undefined ? 'btn btn-primary' : 'btn',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => {
        const entries = Object.entries(ruleset?.limits ?? {});
        setKey(ruleset?.key ?? '');
        setName(ruleset?.name ?? '');
        setDescription(ruleset?.description ?? '');
        setActive(ruleset?.isActive ?? true);
        setRows(entries.map(([limit, value], index) => rowOf(index, limit, value)));
        setNextId(entries.length);
      }}
      write={{
        call: () =>
          unwrap(
            api.PUT('/v1/admin/plans/rulesets', {
              body: {
                key: key.trim(),
                name,
                ...(description.trim() === '' ? {} : { description: description.trim() }),
                isActive,
                limits: Object.fromEntries(
                  rows.map((row) => {
                    const parsed = limitValue(row);
                    return [row.key.trim(), 'value' in parsed ? parsed.value : null];
                  }),
                ),
              },
            }),
          ),
        success: `Ruleset ${name.trim()} saved`,
        failure: 'Could not save the ruleset',
        invalidates: [
          ['plans', 'rulesets'],
          ['plans', 'tiers'],
        ],
      }}
    >
      {ruleset === undefined ? (
        <TextInput
          label="Key"
          name="key"
          value={key}
          onChange={setKey}
          isRequired
          pattern={{
            source: rule('key').pattern ?? '[a-z][a-z0-9_-]{0,47}',
            hint: 'Lowercase letters, digits, _ or -, starting with a letter (at most 48)',
          }}
          description="Tiers refer to the ruleset by it; it cannot change later."
          error={taken.has(key.trim()) ? 'A ruleset has this key: edit that ruleset instead' : undefined}
          autoFocus
        />
      ) : (
        <p>
          Key <code>{ruleset.key}</code> (fixed); used by {ruleset.tierCount} tier{ruleset.tierCount === 1 ? '' : 's'}.
        </p>
      )}
      <TextInput
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        isRequired
        maxLength={rule('name').maxLength}
        autoFocus={ruleset !== undefined}
      />
      <TextInput
        label="Description (optional)"
        name="description"
        value={description}
        onChange={setDescription}
        multiline
        maxLength={rule('description').maxLength}
      />
      <Switch className="switch switch-labelled" isSelected={isActive} onChange={setActive}>
        <span className="switch-track" aria-hidden="true" />
        <span>Active</span>
      </Switch>
      <fieldset className="plans-limits">
        <legend>Limits (read by the session service, such as pool_id or max_fps)</legend>
        {rows.length === 0 ? <p className="muted">No limits.</p> : null}
        {rows.map((row, index) => (
          <div className="plans-limit-row" key={row.id}>
            <TextInput
              label={`Limit ${index + 1} name`}
              name={`limits.${row.key.trim()}`}
              value={row.key}
              onChange={(value) => change(row.id, { key: value })}
              error={row.key === '' ? undefined : rowProblems[index]?.key}
            />
            <ChoiceInput
              label={`Limit ${index + 1} type`}
              value={row.kind}
              choices={LIMIT_KINDS}
              onChange={(kind) =>
                change(row.id, { kind: kind as LimitKind, value: kind === 'boolean' ? 'true' : row.value })
              }
            />
            {row.kind === 'boolean' ? (
              <ChoiceInput
                label={`Limit ${index + 1} value`}
                value={row.value}
                choices={[
                  { id: 'true', label: 'Yes' },
                  { id: 'false', label: 'No' },
                ]}
                onChange={(value) => change(row.id, { value })}
              />
            ) : (
              <TextInput
                label={`Limit ${index + 1} value`}
                value={row.value}
                type={row.kind === 'number' ? 'number' : 'text'}
                onChange={(value) => change(row.id, { value })}
                error={row.value === '' && row.kind !== 'text' ? undefined : rowProblems[index]?.value}
              />
            )}
            <Button
              className="btn btn-quiet"
              aria-label={`Remove limit ${index + 1}${row.key === '' ? '' : ` (${row.key})`}`}
              onPress={() => setRows((all) => all.filter((each) => each.id !== row.id))}
            >
              Remove
            </Button>
          </div>
        ))}
        {limitsOk ? null : (
          <p className="error">Each limit needs a name of its own and a value of its type before the ruleset saves.</p>
        )}
        <div>
          <Button
            className="btn"
            onPress={() => {
              setRows((all) => [...all, { id: nextId, key: '', kind: 'number', value: '' }]);
              setNextId(nextId + 1);
            }}
          >
            Add a limit
          </Button>
        </div>
      </fieldset>
    </FormDialog>
  );
}
