import { StorageUnavailableError } from '../../adapters/storage/index.js';
import { unavailable } from '../../kernel/errors.js';

/** A store that cannot be reached is the client's 503 (retry later), never a 500. */
export async function fromStore<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof StorageUnavailableError) throw unavailable({ service: 'storage' });
    throw error;
  }
}
