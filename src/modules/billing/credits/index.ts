/** What other areas use of the credit ledger. */
export { addCredits, balanceOf, clawbackPurchase } from './ledger.js';
