import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { conflict, forbidden, notFound } from '../../../kernel/errors.js';
import { refuseActingOnRole } from '../../roles/index.js';
import type { Writes } from '../../../kernel/write.js';
import { roleAlertsPicture } from './audit-picture.js';
import { ALERTS, ALERT_NAMES, roleAlertChannel, type AlertName } from './alerts.js';
import { lockRoleKey } from '../../roles/index.js';
import { alertRoleKeysOf, replaceSubscriptions, roleKey, subscriptionsOf } from './queries.js';
import type { SetAlertsInput } from './schemas.js';

/** Which roles hear which alerts. The role's holders receive them on the role's realtime channel. */
export class AlertSubscriptionService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
  ) {}

  catalog() {
    return {
      data: ALERT_NAMES.map((name) => ({
        name,
        description: ALERTS[name].description,
        readable_with: [...ALERTS[name].readableWith],
      })),
    };
  }

  async get(roleId: string) {
    const key = await roleKey(this.db, roleId);
    if (key === undefined) throw notFound();
    return {
      role_id: roleId,
      channel: roleAlertChannel(key),
      alerts: (await subscriptionsOf(this.db, roleId)) as AlertName[],
    };
  }

  /**
   * Replaces the role's subscriptions. Subscribing passes on what an alert tells, so the caller
   * must be able to read it themselves (403 naming a key that would); a name listed twice is 409.
   */
  async set(actor: Actor, roleId: string, input: SetAlertsInput) {
    const duplicate = input.alerts.find((alert, index) => input.alerts.indexOf(alert) !== index);
    if (duplicate !== undefined) throw conflict({ reason: 'alert listed twice', alert: duplicate });
    return this.write(actor, async (w) => {
      const key = await lockRoleKey(w.trx, roleId);
      if (key === undefined) throw notFound();
      await refuseActingOnRole(w.trx, actor, roleId);
      const before = await subscriptionsOf(w.trx, roleId);
      for (const alert of input.alerts.filter((name) => !before.includes(name))) {
        const readableWith = ALERTS[alert].readableWith;
        if (!actor.permissions.hasAny(readableWith)) throw forbidden({ perm: readableWith.join(' | '), alert });
      }
      const after = [...input.alerts].sort();
      await replaceSubscriptions(w.trx, roleId, after);
      await w.auditRow(roleAlertsPicture, {
        action: 'roles.alerts.set',
        targetType: 'role',
        targetId: roleId,
        before: { alerts: before },
        after: { alerts: after },
        extra: { key },
      });
      await w.publish({
        kind: 'dashboard',
        name: 'roles.alerts_changed',
        payload: { role_id: roleId, key, alerts: after },
      });
      return { role_id: roleId, channel: roleAlertChannel(key), alerts: after as AlertName[] };
    });
  }

  /** Keys of the user's current roles that hear at least one alert: the alert channels they may join. */
  roleKeysHeardBy(userId: string, now: Date): Promise<string[]> {
    return alertRoleKeysOf(this.db, userId, now);
  }
}
