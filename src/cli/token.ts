import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, resolveDevSecret } from '../config.js';
import {
  checkMintOptions,
  mintToken,
  parseClaims,
  parseTtl,
  TokenOptionError,
  type MintOptions,
} from '../kernel/auth/token-mint.js';
import type { CommandIo } from './command.js';
import { UsageError } from './errors.js';

export const TOKEN_USAGE = `Usage: platform-api token --sub <uuid> [--email e] [--ttl 1h] [--claim k=v ...]

Mints an HS256 token with aud "authenticated" signed with JWT_SECRET (or the embedded dev
secret in DATA_DIR). --ttl is a whole number of s, m, h or d, from 1s to 365d. --claim may
repeat; dotted keys nest (app_metadata.provider=github) and JSON values are parsed
(--claim 'amr=["pwd"]'); sub, aud, iat and exp are set by the command and refused as claims.`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function tokenCommand(args: string[], io: CommandIo): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      sub: { type: 'string' },
      email: { type: 'string' },
      ttl: { type: 'string', default: '1h' },
      claim: { type: 'string', multiple: true, default: [] },
    },
  });
  if (values.sub === undefined) throw new UsageError('--sub <uuid> is required', TOKEN_USAGE);
  if (!UUID.test(values.sub)) {
    throw new UsageError(`--sub must be a uuid (the user's id), got "${values.sub}"`, TOKEN_USAGE);
  }
  // Every option is checked before the secret is looked up: a typo is a usage error, not a config one.
  let options: MintOptions;
  try {
    const ttlSeconds = parseTtl(values.ttl);
    options = { subject: values.sub, email: values.email, ttlSeconds, claims: parseClaims(values.claim) };
    checkMintOptions(options);
  } catch (error) {
    if (error instanceof TokenOptionError) throw new UsageError(error.message, TOKEN_USAGE);
    throw error;
  }
  const config = resolveDevSecret(loadConfig(io.env));
  if (config.jwtSecret === undefined)
    throw new ConfigError('JWT_SECRET', 'not set; the token command signs HS256 tokens with it');
  const minted = await mintToken(config.jwtSecret, options);
  io.stdout.write(`${minted}\n`);
}
