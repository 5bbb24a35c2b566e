import { unwrap } from '@platform-api/sdk';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { PANIC_QUERY_KEY, usePanicState } from '../../shell/maintenance-banner';
import { Confirm } from '../../ui/confirm';
import { ChoiceInput } from '../../ui/fields';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { ActorLink } from '../../ui/names';
import { IncidentRules } from './incident-rules';
import { OperationsNav } from './operations-nav';

const LEVELS = [
  { id: 'off', label: 'Off: normal' },
  { id: 'degraded', label: 'Degraded: no new checkouts or game sessions' },
  { id: 'lockdown', label: 'Lockdown: players cannot write' },
];
const CONSEQUENCES: Record<string, string> = {
  off: 'Every route works again for every client.',
  degraded: 'New checkouts and new game sessions are refused with 503 until the level changes.',
  lockdown: 'Every write from players and public clients is refused with 503; staff routes keep working.',
};

/** The maintenance level (set with a reason and a confirmation), incident rules and the timeline. */
export default function MaintenancePage() {
  const permissions = usePermissions();
  const queryClient = useQueryClient();
  const panic = usePanicState(permissions);
  // The choice starts at the level in force (never at Lockdown): changing it is a deliberate pick.
  const [picked, setLevel] = useState<string | undefined>();
  const level = picked ?? panic.data?.level ?? 'off';
  const incidents = useQuery({
    queryKey: ['ops', 'incidents', 'timeline'],
    enabled: permissions.can('ops.read', 'ops.panic'),
    queryFn: () => unwrap(api.GET('/v1/admin/ops/incidents', { params: { query: { per_page: 25 } } })),
  });
  const canSet = permissions.can('ops.panic');

  return (
    <section className="stack">
      <h1>Operations</h1>
      <OperationsNav />
      <section className="card" aria-labelledby="level-heading">
        <h2 id="level-heading">Maintenance level</h2>
        {panic.error === null ? null : <ProblemNote error={panic.error} />}
        {panic.data === undefined ? null : (
          <p>
            Now <strong className={`level-inline level-${panic.data.level}`}>{panic.data.level}</strong>
            {panic.data.set_at === null ? null : (
              <>
                {' '}
                since <Time value={panic.data.set_at} />
                {panic.data.auto ? ' (incident monitoring)' : ''}
                {panic.data.reason === null ? '' : `: ${panic.data.reason}`}
              </>
            )}
          </p>
        )}
        <div className="inline-form">
          <ChoiceInput label="New level" value={level} choices={LEVELS} onChange={setLevel} />
          <Confirm
            trigger="Set level…"
            destructive={level !== 'off'}
            isDisabled={!canSet || level === panic.data?.level}
            disabledReason={canSet ? undefined : 'Needs ops.panic'}
            title={`Set the maintenance level to ${level}?`}
            consequence={`${CONSEQUENCES[level]} Every instance applies it within a second.`}
            confirmLabel={`Set ${level}`}
            reason={ruleOf('POST /v1/admin/ops/panic', 'reason')}
            write={{
              call: (reason) =>
                unwrap(
                  api.POST('/v1/admin/ops/panic', {
                    body: { level: level as 'off' | 'degraded' | 'lockdown', reason },
                  }),
                ),
              success: (answer) => `Maintenance level is ${answer.panic.level}`,
              failure: 'Could not set the level',
              invalidates: [['ops', 'incidents']],
              onDone: (answer) => {
                queryClient.setQueryData(PANIC_QUERY_KEY, answer.panic);
                setLevel(undefined);
              },
            }}
          />
        </div>
      </section>
      {permissions.can('ops.panic') ? <IncidentRules /> : null}
      <section className="stack" aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Incident timeline</h2>
        {incidents.error === null ? null : <ProblemNote error={incidents.error} />}
        {incidents.data?.data.length === 0 ? <p className="muted">No level change yet.</p> : null}
        <ol className="timeline">
          {(incidents.data?.data ?? []).map((incident) => (
            <li key={incident.id}>
              <Time value={incident.created_at} />: {incident.previous_level} → <strong>{incident.level}</strong>
              {incident.auto ? (
                ` by rule ${incident.rule_key ?? '?'}`
              ) : (
                <>
                  {' by '}
                  <ActorLink id={incident.set_by} />
                </>
              )}
              {incident.reason === null ? '' : `: ${incident.reason}`}
              {incident.measurement === null ? null : (
                <details>
                  <summary>What the rule measured</summary>
                  <pre className="json">{JSON.stringify(incident.measurement, null, 2)}</pre>
                </details>
              )}
            </li>
          ))}
        </ol>
      </section>
    </section>
  );
}
