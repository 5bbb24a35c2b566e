import { auditPicture } from '../../kernel/audit.js';
import type { GameSessionsTable } from './tables.js';

/** What a session's audit rows keep: where it stands and why it ended (who and where go to the row's extra). */
export const gameSessionPicture = auditPicture<GameSessionsTable>({
  id: false,
  user_id: false,
  game_id: false,
  game_slug: false,
  game_title: false,
  pool_id: false,
  node_id: false,
  status: true,
  end_reason: true,
  stopped_by: false,
  play_url: false,
  created_at: false,
  started_at: false,
  ended_at: false,
});
