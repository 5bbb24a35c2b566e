import type { RuntimeNode, RuntimePool } from '../../adapters/runtime/index.js';
import { auditPicture } from '../../kernel/audit.js';

/** The runtime is the store of record of nodes and pools: these pictures are of its answers. */

/** What a node's audit rows keep: its state and its pool. */
export const nodePicture = auditPicture<RuntimeNode>({
  id: false,
  pool_id: true,
  status: true,
  region: false,
  capacity: false,
  images: false,
  created_at: false,
  updated_at: false,
});

/** What a pool's audit rows keep: its names. */
export const poolPicture = auditPicture<RuntimePool>({
  id: false,
  name: true,
  description: true,
  node_ids: false,
  created_at: false,
  updated_at: false,
});
