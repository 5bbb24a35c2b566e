/** What other areas use of incidents. */
export { insertPanicChange, setHoldingRule, silenceFailingRules } from './queries.js';
