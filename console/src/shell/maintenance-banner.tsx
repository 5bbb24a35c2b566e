import { unwrap } from '@platform-api/sdk';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../api/client';
import type { Permissions } from '../api/permissions';
import { Time } from '../ui/time';

/** How the panic query is keyed: realtime events on `ops` make it stale (api/realtime.tsx). */
export const PANIC_QUERY_KEY = ['ops', 'panic'];
/** The notice every staff member reads (`GET /v1/me/maintenance`); under `ops`, so ops events refresh it too. */
export const MAINTENANCE_NOTICE_KEY = ['ops', 'maintenance-notice'];

export function usePanicState(permissions: Permissions) {
  return useQuery({
    queryKey: PANIC_QUERY_KEY,
    queryFn: () => unwrap(api.GET('/v1/admin/ops/panic')),
    enabled: permissions.can('ops.read', 'ops.panic'),
    // The socket brings changes within a second; this covers a socket that is down.
    refetchInterval: 30_000,
  });
}

/**
 * The level, for every staff member whatever their role. Every socket hears `ops.panic_changed`
 * on its own user channel, which makes `ops` queries stale (api/realtime.tsx): a change shows at
 * once; the poll covers a socket that is down.
 */
export function useMaintenanceNotice() {
  return useQuery({
    queryKey: MAINTENANCE_NOTICE_KEY,
    queryFn: () => unwrap(api.GET('/v1/me/maintenance')),
    refetchInterval: 60_000,
  });
}

/** The maintenance level on every page, for every staff member: since when, who set it and why; nothing while off. */
export function MaintenanceBanner({ permissions }: { permissions: Permissions }) {
  const queryClient = useQueryClient();
  const { data } = useMaintenanceNotice();
  // The Operations screen writes the level into the panic query: the notice follows at once.
  const panic = usePanicState(permissions).data;
  useEffect(() => {
    if (panic !== undefined) void queryClient.invalidateQueries({ queryKey: MAINTENANCE_NOTICE_KEY });
  }, [panic, queryClient]);

  // The live region stays in the page, so a level that comes on is announced.
  return (
    <div className="banner-region" role="status" aria-live="polite">
      {data === undefined || data.level === 'off' ? null : (
        <div className={`banner banner-${data.level}`} data-testid="maintenance-banner">
          <strong>Maintenance: {data.level === 'lockdown' ? 'lockdown' : 'degraded'}</strong>
          <span>
            {data.level === 'lockdown'
              ? 'Players cannot make changes; staff routes work.'
              : 'New checkouts and game sessions are refused.'}
          </span>
          <span className="banner-who">
            {data.auto ? 'Set automatically by incident monitoring' : `Set by ${data.set_by_name ?? 'someone'}`}
            {data.set_at === null ? null : (
              <>
                {' '}
                since <Time value={data.set_at} />
              </>
            )}
          </span>
          {data.reason === null ? null : <span className="banner-reason">“{data.reason}”</span>}
        </div>
      )}
    </div>
  );
}
