import { type paths, unwrap } from '@platform-api/sdk';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Switch } from 'react-aria-components';
import { api } from '../../api/client';
import { DataTable } from '../../ui/data-table';
import { ProblemNote } from '../../ui/problem-note';
import { notify } from '../../ui/toasts';

type RuleInput =
  paths['/v1/admin/ops/incident-rules']['put']['requestBody']['content']['application/json']['rules'][number];
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

/** Incident rules that set and clear the level automatically: each can be turned on and off. */
export function IncidentRules() {
  const queryClient = useQueryClient();
  const rules = useQuery({
    queryKey: ['ops', 'incident-rules'],
    queryFn: () => unwrap(api.GET('/v1/admin/ops/incident-rules')),
  });
  const setEnabled = async (key: string, enabled: boolean) => {
    const current = rules.data?.rules ?? [];
    try {
      const answer = await unwrap(
        api.PUT('/v1/admin/ops/incident-rules', {
          body: {
            rules: current.map((rule) => ({ ...inputOf(rule), enabled: rule.key === key ? enabled : rule.enabled })),
          },
        }),
      );
      queryClient.setQueryData(['ops', 'incident-rules'], answer);
      notify.success(`Rule ${key} ${enabled ? 'enabled' : 'disabled'}`);
    } catch (error) {
      notify.failure(`Could not change rule ${key}`, error);
    }
  };
  return (
    <section className="stack" aria-labelledby="rules-heading">
      <h2 id="rules-heading">Incident rules</h2>
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
            id: 'enabled',
            name: 'Enabled',
            render: (rule) => (
              <Switch
                className="switch"
                isSelected={rule.enabled}
                onChange={(on) => void setEnabled(rule.key, on)}
                aria-label={`Rule ${rule.key} enabled`}
              >
                <span className="switch-track" aria-hidden="true" />
              </Switch>
            ),
          },
        ]}
      />
    </section>
  );
}
