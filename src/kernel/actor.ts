import type { PermissionSet } from './permissions.js';

/** What a staff write records about who made it and from where (the audit row's context). */
export interface RequestContext {
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
}

/** The signed-in caller as services see it: plain values, no HTTP. */
export interface Actor extends RequestContext {
  userId: string;
  permissions: PermissionSet;
}
