import { auditPicture } from '../../../kernel/audit.js';
import type { IncidentRulesTable } from './tables.js';

/** What the rules' audit row keeps of each rule: what staff set, never the monitor's state. */
export const incidentRulePicture = auditPicture<IncidentRulesTable>({
  key: true,
  signal: true,
  threshold: true,
  window_seconds: true,
  min_requests: true,
  level: true,
  auto_clear: true,
  hold_seconds: true,
  cooldown_seconds: true,
  enabled: true,
  updated_at: false,
  updated_by: false,
  holding: false,
  breached_since: false,
  healthy_since: false,
  last_change_at: false,
  silenced_until: false,
  last_evaluated_at: false,
  last_value: false,
  last_total: false,
});
