/** What other areas use of unsubscribe. */
export { parseFormBody } from './form-body.js';
