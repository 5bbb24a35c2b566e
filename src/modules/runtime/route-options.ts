// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import {
  assignPoolBody,
  createPoolBody,
  drainBody,
  listNodesQuery,
  nodeIdParams,
  poolIdParams,
  pullImageBody,
  pullImageResult,
  runtimeNodeBody,
  runtimeNodesBody,
  runtimePoolBody,
  runtimePoolsBody,
  updatePoolBody,
} from './schemas.js';

const tags = ['runtime'];
const unreachable =
  '503 `unavailable` with `Retry-After` when the runtime cannot be reached, times out or fails (retry later).';
const unknownNode = '404 `not_found` for a node the runtime does not know (`details.runtime_code` `node_not_found`).';
const unknownPool = '404 `not_found` for a pool the runtime does not know (`details.runtime_code` `pool_not_found`).';
const refusal = "`details` carry the runtime's `runtime_code` and `message`.";

export const listRuntimeNodes = {
  config: { perms: ['runtime.read'] },
  schema: {
    operationId: 'listRuntimeNodes',
    tags,
    summary: 'List runtime nodes, sorted by id',
    description: `Filter by \`pool_id\` and \`status\`. ${unreachable}`,
    querystring: listNodesQuery,
    response: { 200: runtimeNodesBody },
  },
} as const;

export const getRuntimeNode = {
  config: { perms: ['runtime.read'], errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getRuntimeNode',
    tags,
    summary: 'Get a runtime node with its images and capacity',
    description: `${unknownNode} ${unreachable}`,
    params: nodeIdParams,
    response: { 200: runtimeNodeBody },
  },
} as const;

export const pullRuntimeNodeImage = {
  config: { perms: ['runtime.write'], errors: { 404: ['not_found'], 409: ['conflict'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'pullRuntimeNodeImage',
    tags,
    summary: 'Pull an image onto a node',
    description:
      'Starts pulling an image on the node; its `images` then show it `pulling`, then `ready` or `failed`. ' +
      "Refusals carry the runtime's `runtime_code`; 503 `unavailable` when the runtime cannot be reached. In " +
      'depth: [docs/api/runtime.md](docs/api/runtime.md#pull-an-image-onto-a-node).',
    params: nodeIdParams,
    body: pullImageBody,
    response: { 200: pullImageResult },
  },
} as const;

export const drainRuntimeNode = {
  config: { perms: ['runtime.write'], errors: { 404: ['not_found'], 409: ['conflict'] } },
  schema: {
    operationId: 'drainRuntimeNode',
    tags,
    summary: 'Drain a node: no new sessions, running ones go on',
    description:
      `Answers the node. Audited as \`runtime.node_drain\` with the optional \`reason\`. ${unknownNode} 409 ` +
      `\`conflict\` for an offline node; ${refusal} ${unreachable}`,
    params: nodeIdParams,
    body: drainBody,
    response: { 200: runtimeNodeBody },
  },
} as const;

export const undrainRuntimeNode = {
  config: { perms: ['runtime.write'], errors: { 404: ['not_found'], 409: ['conflict'] } },
  schema: {
    operationId: 'undrainRuntimeNode',
    tags,
    summary: 'Undrain a node: it takes new sessions again',
    description:
      `Answers the node. Audited as \`runtime.node_undrain\` with the optional \`reason\`. ${unknownNode} 409 ` +
      `\`conflict\` for an offline node; ${refusal} ${unreachable}`,
    params: nodeIdParams,
    body: drainBody,
    response: { 200: runtimeNodeBody },
  },
} as const;

export const setRuntimeNodePool = {
  config: { perms: ['runtime.write'], errors: { 404: ['not_found'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'setRuntimeNodePool',
    tags,
    summary: 'Move a node into a pool, or out of every pool',
    description:
      'Moves the node to another pool and answers the node; audited with the pool it left and the one it ' +
      'joined. An unknown `pool_id` is 422, an unknown node 404. In depth: ' +
      '[docs/api/runtime.md](docs/api/runtime.md#move-a-node-into-a-pool-or-out-of-every-pool).',
    params: nodeIdParams,
    body: assignPoolBody,
    response: { 200: runtimeNodeBody },
  },
} as const;

export const listRuntimePools = {
  config: { perms: ['runtime.read'] },
  schema: {
    operationId: 'listRuntimePools',
    tags,
    summary: 'List runtime pools',
    description: unreachable,
    response: { 200: runtimePoolsBody },
  },
} as const;

export const getRuntimePool = {
  config: { perms: ['runtime.read'], errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getRuntimePool',
    tags,
    summary: 'Get a runtime pool with its node ids',
    description: `${unknownPool} ${unreachable}`,
    params: poolIdParams,
    response: { 200: runtimePoolBody },
  },
} as const;

export const createRuntimePool = {
  config: { perms: ['runtime.write'], errors: { 409: ['conflict'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'createRuntimePool',
    tags,
    summary: 'Create a runtime pool',
    description:
      `Audited as \`runtime.pool_create\`. 409 \`conflict\` when a pool with that id exists; 422 ` +
      `\`invalid_request\` if the runtime refuses the pool; ${refusal} ${unreachable}`,
    body: createPoolBody,
    response: { 201: runtimePoolBody },
  },
} as const;

export const updateRuntimePool = {
  config: { perms: ['runtime.write'], errors: { 404: ['not_found'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'updateRuntimePool',
    tags,
    summary: 'Rename or describe a runtime pool',
    description:
      "Changes a pool's `name` or `description` (null clears it) at the runtime; a body that changes nothing " +
      "audits nothing. Refusals carry the runtime's `runtime_code`. In depth: " +
      '[docs/api/runtime.md](docs/api/runtime.md#rename-or-describe-a-runtime-pool).',
    params: poolIdParams,
    body: updatePoolBody,
    response: { 200: runtimePoolBody },
  },
} as const;
