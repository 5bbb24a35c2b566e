import { isPlatformApiError, type paths, type SchemaIssue, unwrap } from '@platform-api/sdk';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Switch } from 'react-aria-components';
import { api } from '../../api/client';
import { Confirm } from '../../ui/confirm';
import { DataTable } from '../../ui/data-table';
import { useWrite, type WriteOptions } from '../../api/writes';
import { ProblemNote } from '../../ui/problem-note';
import { IncidentRuleDialog, NEW_RULE, type RuleInput } from './incident-rule-dialog';

type Answer = paths['/v1/admin/ops/incident-rules']['put']['responses'][200]['content']['application/json'];
type Rule =
  paths['/v1/admin/ops/incident-rules']['get']['responses'][200]['content']['application/json']['rules'][number];

/** The rule as the PUT takes it: the stored fields without the state and the bookkeeping. */
const inputOf = (rule: Rule): RuleInput => ({
  key: rule.key,
  signal: rule.signal,
  threshold: rule.threshold,
  window_seconds: rule.window_seconds,
  min_requests: rule.min_requests,
  level: rule.level,
  auto_clear: rule.auto_clear,
  hold_seconds: rule.hold_seconds,
  cooldown_seconds: rule.cooldown_seconds,
  enabled: rule.enabled,
});

/** The service's issues about the rule at `index` of the list, by its field (`rules.2.threshold` → `threshold`). */
function issuesOfRule(error: unknown, index: number): Record<string, string> {
  if (!isPlatformApiError(error) || error.problem.kind !== 'validation') return {};
  const fields: Record<string, string> = {};
  for (const issue of error.problem.issues as SchemaIssue[]) {
    const [list, at, name] = issue.path;
    if (list === 'rules' && at === index && typeof name === 'string') fields[name] ??= issue.message;
  }
  return fields;
}

/** Incident rules that set and clear the level automatically: turned on and off, edited, added, removed. */
export function IncidentRules() {
  const queryClient = useQueryClient();
  const rules = useQuery({
    queryKey: ['ops', 'incident-rules'],
    queryFn: () => unwrap(api.GET('/v1/admin/ops/incident-rules')),
  });
  const [editing, setEditing] = useState<{ index: number; rule: RuleInput } | undefined>();
  const current = (rules.data?.rules ?? []).map(inputOf);

  /** The whole list goes back to the service (the PUT replaces it), and its answer is the list shown. */
  const save = <Input,>(next: RuleInput[], done: string): WriteOptions<Input, Answer> => ({
    call: () => unwrap(api.PUT('/v1/admin/ops/incident-rules', { body: { rules: next } })),
    success: done,
    failure: 'Could not save the incident rules',
    onDone: (answer) => queryClient.setQueryData(['ops', 'incident-rules'], answer),
  });
  const setEnabled = useWrite<{ key: string; enabled: boolean }, Answer>({
    call: ({ key, enabled }) =>
      unwrap(
        api.PUT('/v1/admin/ops/incident-rules', {
          body: { rules: current.map((rule) => (rule.key === key ? { ...rule, enabled } : rule)) },
        }),
      ),
    success: (_answer, { key, enabled }) => `Rule ${key} ${enabled ? 'enabled' : 'disabled'}`,
    failure: 'Could not save the incident rules',
    onDone: (answer) => queryClient.setQueryData(['ops', 'incident-rules'], answer),
  });
  return (
    <section className="stack" aria-labelledby="rules-heading">
      <header className="page-header">
        <h2 id="rules-heading">Incident rules</h2>
        <Button className="btn" onPress={() => setEditing({ index: current.length, rule: NEW_RULE })}>
          New rule…
        </Button>
      </header>
      {rules.error === null ? null : <ProblemNote error={rules.error} />}
      <DataTable
        label="Incident rules"
        items={(rules.data?.rules ?? []).map((rule) => ({ ...rule, id: rule.key }))}
        emptyText={rules.isPending ? 'Loading…' : 'No incident rules: only staff change the level.'}
        columns={[
          { id: 'key', name: 'Rule', isRowHeader: true, render: (rule) => <code>{rule.key}</code> },
          {
            id: 'when',
            name: 'Trips when',
            render: (rule) =>
              `${rule.signal} ≥ ${rule.threshold} over ${rule.window_seconds} s (at least ${rule.min_requests} requests)`,
          },
          { id: 'level', name: 'Sets', render: (rule) => `${rule.level}${rule.auto_clear ? ', clears itself' : ''}` },
          { id: 'state', name: 'Now', render: (rule) => (rule.state.holding ? 'holding the level' : 'quiet') },
          {
            id: 'edit',
            name: 'Change',
            render: (rule) => (
              <span className="button-row">
                <Button
                  className="btn btn-quiet"
                  onPress={() => {
                    setEditing({ index: current.findIndex((each) => each.key === rule.key), rule: inputOf(rule) });
                  }}
                >
                  Edit
                </Button>
                <Confirm
                  trigger="Remove…"
                  triggerClassName="btn btn-quiet"
                  destructive
                  title={`Remove rule ${rule.key}?`}
                  consequence={`Incident monitoring stops watching ${rule.signal} for it; a level it holds stays until changed.`}
                  confirmLabel="Remove"
                  write={save<string>(
                    current.filter((each) => each.key !== rule.key),
                    `Rule ${rule.key} removed`,
                  )}
                />
              </span>
            ),
          },
          {
            id: 'enabled',
            name: 'Enabled',
            render: (rule) => (
              <Switch
                className="switch"
                isSelected={rule.enabled}
                isDisabled={setEnabled.isPending}
                onChange={(enabled) => setEnabled.mutate({ key: rule.key, enabled })}
                aria-label={`Rule ${rule.key} enabled`}
              >
                <span className="switch-track" aria-hidden="true" />
              </Switch>
            ),
          },
        ]}
      />
      {editing === undefined ? null : (
        <IncidentRuleDialog
          rule={editing.rule}
          isNew={editing.index === current.length}
          onClose={() => setEditing(undefined)}
          issuesOf={(error) => issuesOfRule(error, editing.index)}
          save={(rule) => {
            const next = [...current];
            next[editing.index] = rule;
            return save<void>(next, `Rule ${rule.key} saved`);
          }}
        />
      )}
    </section>
  );
}
