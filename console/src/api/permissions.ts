import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { api } from './client';

/**
 * The caller's effective permission keys (`GET /v1/me/permissions` expands wildcards), deciding what
 * the console shows. The service stays the authority: a refused call still shows its refusal.
 */
export function usePermissions() {
  const query = useQuery({
    queryKey: ['me', 'permissions'],
    queryFn: () => unwrap(api.GET('/v1/me/permissions')),
    staleTime: 60_000,
  });
  const keys = new Set(query.data?.permissions ?? []);
  return {
    ...query,
    /** Whether the caller holds at least one of the keys (the API's OR semantics). */
    can: (...anyOf: string[]) => anyOf.some((key) => keys.has(key)),
  };
}

export type Permissions = ReturnType<typeof usePermissions>;
