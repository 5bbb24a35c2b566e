/** What the rest of the service uses of the console: the embedded development owner's sign-in codes. */
export { DEV_OWNER_EMAIL, DEV_OWNER_TOKEN_TTL_SECONDS, DevSignInCodes } from './dev-sign-in.js';
