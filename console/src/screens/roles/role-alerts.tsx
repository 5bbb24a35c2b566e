import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Checkbox } from 'react-aria-components';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { useWrite } from '../../api/writes';
import { ProblemNote } from '../../ui/problem-note';
import './role-alerts.css';

type AlertName = 'panic_mode_changed';

/**
 * The alerts a role's holders hear on their realtime channel, and choosing them. An alert is
 * offered only when the role holds a permission that reads it (the service refuses the rest).
 */
export function RoleAlerts({ role }: { role: { id: string; key: string; permissions: string[] } }) {
  const permissions = usePermissions();
  const catalog = useQuery({
    queryKey: ['alerts'],
    queryFn: () => unwrap(api.GET('/v1/admin/alerts')),
    staleTime: 300_000,
  });
  const heard = useQuery({
    queryKey: ['role', role.id, 'alerts'],
    queryFn: () => unwrap(api.GET('/v1/admin/roles/{id}/alerts', { params: { path: { id: role.id } } })),
  });
  if (catalog.error !== null || heard.error !== null) return <ProblemNote error={catalog.error ?? heard.error} />;
  if (catalog.data === undefined || heard.data === undefined) return <p className="loading">Loading alerts…</p>;
  // Keyed by what the service holds: after a save the choices start again from it.
  return (
    <AlertChoices
      key={heard.data.alerts.join(' ')}
      role={role}
      channel={heard.data.channel}
      heard={heard.data.alerts}
      alerts={catalog.data.data}
      canWrite={permissions.can('roles.write')}
    />
  );
}

function AlertChoices(props: {
  role: { id: string; key: string; permissions: string[] };
  channel: string;
  heard: AlertName[];
  alerts: Array<{ name: AlertName; description: string; readable_with: string[] }>;
  canWrite: boolean;
}) {
  const [chosen, setChosen] = useState(new Set(props.heard));
  const save = useWrite({
    call: () =>
      unwrap(
        api.PUT('/v1/admin/roles/{id}/alerts', {
          params: { path: { id: props.role.id } },
          body: { alerts: [...chosen] },
        }),
      ),
    success: `Alerts of ${props.role.key} saved`,
    failure: 'Could not save the alerts',
    invalidates: [['role', props.role.id, 'alerts']],
  });
  const held = new Set(props.role.permissions);
  const readable = (alert: { readable_with: string[] }) =>
    held.has('*') || alert.readable_with.some((key) => held.has(key));
  const changed = [...chosen].sort().join(' ') !== [...props.heard].sort().join(' ');

  return (
    <section className="stack" aria-labelledby="role-alerts">
      <h2 id="role-alerts">Alerts</h2>
      <p className="hint">
        Holders hear the chosen alerts live in the console (channel <code>{props.channel}</code>).
      </p>
      <ul className="plain-list">
        {props.alerts.map((alert) => (
          <li key={alert.name}>
            <Checkbox
              className="checkbox checkbox-labelled"
              isSelected={chosen.has(alert.name)}
              isDisabled={!props.canWrite || (!readable(alert) && !chosen.has(alert.name))}
              onChange={(selected) => {
                const next = new Set(chosen);
                if (selected) next.add(alert.name);
                else next.delete(alert.name);
                setChosen(next);
              }}
            >
              <span className="checkbox-box" aria-hidden="true" />
              <span>
                <strong>{alert.description}</strong>{' '}
                <span className="muted">
                  ({alert.name}
                  {readable(alert) ? '' : `; needs ${alert.readable_with.join(' or ')}`})
                </span>
              </span>
            </Checkbox>
          </li>
        ))}
      </ul>
      <div>
        <Button
          className="btn btn-primary"
          isDisabled={!props.canWrite || !changed || save.isPending}
          onPress={() => save.mutate()}
        >
          {save.isPending ? 'Saving…' : 'Save alerts'}
        </Button>
        {props.canWrite ? null : <span className="hint">Needs roles.write</span>}
      </div>
    </section>
  );
}
