/** What other areas use of runtime. */
export { RUNTIME_RETRY_AFTER_SECONDS, runtimeFailure } from './runtime-errors.js';
