import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { createResponseSerializerCompiler } from '../../src/lib/response-serializer.js';
import { permissionsBody, profileBody } from '../../src/modules/me/schemas.js';
import { usersPage } from '../../src/modules/users/schemas.js';

/**
 * The CPU one answer's serialization costs: zod's parse then `JSON.stringify` (what
 * fastify-type-provider-zod's serializer did) against the compiled shaper (response-serializer.ts),
 * on the soak's serialized answers as the services hand them over (dates as Date, undocumented
 * columns included): a player's profile and permissions, and pages of the users list. Read the ratio; the microseconds
 * follow the machine's mood.
 *
 *   npx tsx bench/tools/serializer-cost.ts
 */

function usersPageOf(size: number) {
  const data = Array.from({ length: size }, (_, index) => ({
    id: randomUUID(),
    email: `player-${index}@example.test`,
    display_name: index % 3 === 0 ? null : `Player ${index}`,
    provider: 'email',
    status: 'active',
    tier: index % 2 === 0 ? null : 'pro',
    roles: index % 5 === 0 ? ['support'] : [],
    created_at: new Date(Date.now() - index * 86_400_000),
    updated_at: new Date(Date.now() - index * 3_600_000),
    last_seen_at: index % 4 === 0 ? null : new Date(Date.now() - index * 60_000),
    deleted_at: null,
    identity_id: randomUUID(),
  }));
  return { data, meta: { page: 1, per_page: size, total: 1_234 } };
}

function microsecondsPerCall(write: () => string): number {
  for (let warm = 0; warm < 2_000; warm++) write();
  let best = Infinity;
  // The best of five rounds: the least disturbed by whatever else the machine runs.
  for (let round = 0; round < 5; round++) {
    const calls = 2_000;
    const start = process.hrtime.bigint();
    for (let call = 0; call < calls; call++) write();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1_000 / calls);
  }
  return best;
}

function compare(name: string, schema: z.ZodType, value: unknown) {
  const compiled = createResponseSerializerCompiler()({ schema, method: 'GET', url: name });
  const byZod = () => JSON.stringify(schema.parse(value));
  if (compiled(value) !== byZod()) throw new Error(`${name}: the two serializers disagree`);
  const zodCost = microsecondsPerCall(byZod);
  const compiledCost = microsecondsPerCall(() => compiled(value));
  const bytes = compiled(value).length;
  console.log(
    `${name.padEnd(22)} ${String(bytes).padStart(6)} B   zod ${zodCost.toFixed(1).padStart(6)} µs   compiled ` +
      `${compiledCost.toFixed(1).padStart(6)} µs   ratio ${(compiledCost / zodCost).toFixed(2)}`,
  );
}

compare('GET /v1/me', profileBody, {
  id: randomUUID(),
  email: 'player@example.test',
  display_name: 'Player',
  provider: 'email',
  status: 'active',
  tier: 'pro',
  locale: 'en',
  timezone: 'Europe/Berlin',
  avatar_url: null,
  marketing_opt_in: true,
  created_at: new Date(),
  last_seen_at: new Date(),
  profile_updated_at: null,
  identity_id: randomUUID(),
});
compare('GET /v1/me/permissions', permissionsBody, {
  permissions: ['store.read', 'support.write', 'users.read'],
  roles: [{ key: 'support', name: 'Support', expires_at: null, role_id: randomUUID() }],
});
compare('users page of 20', usersPage, usersPageOf(20));
compare('users page of 50', usersPage, usersPageOf(50));
