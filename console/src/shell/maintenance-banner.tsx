import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Permissions } from '../api/permissions';

/** How the panic query is keyed: realtime events on `ops` make it stale (api/realtime.tsx). */
export const PANIC_QUERY_KEY = ['ops', 'panic'];

export function usePanicState(permissions: Permissions) {
  return useQuery({
    queryKey: PANIC_QUERY_KEY,
    queryFn: () => unwrap(api.GET('/v1/admin/ops/panic')),
    enabled: permissions.can('ops.read', 'ops.panic'),
    // The socket brings changes within a second; this covers a socket that is down.
    refetchInterval: 30_000,
  });
}

/** The maintenance level on every page, for staff who may read it; nothing while it is off. */
export function MaintenanceBanner({ permissions }: { permissions: Permissions }) {
  const { data } = usePanicState(permissions);
  if (data === undefined || data.level === 'off') return null;
  return (
    <div className={`banner banner-${data.level}`} role="status" data-testid="maintenance-banner">
      <strong>Maintenance: {data.level === 'lockdown' ? 'lockdown' : 'degraded'}</strong>
      <span>
        {data.level === 'lockdown'
          ? 'Players cannot make changes; staff routes work.'
          : 'New checkouts and game sessions are refused.'}
      </span>
      {data.reason === null ? null : <span className="banner-reason">“{data.reason}”</span>}
      {data.auto ? <span>(set automatically by incident monitoring)</span> : null}
    </div>
  );
}
