/** Money as the billing API writes it: integer minor units with a lowercase ISO 4217 currency. */

/** How many minor digits a currency has (2 for eur, 0 for jpy). */
export function minorDigits(currency: string): number {
  try {
    return (
      new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).resolvedOptions()
        .maximumFractionDigits ?? 2
    );
  } catch {
    return 2;
  }
}

/** `1999, 'eur'` → `€19.99`. */
export function formatMoney(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  const major = minor / 10 ** digits;
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(major);
  } catch {
    return `${major.toFixed(digits)} ${currency.toUpperCase()}`;
  }
}

/** A typed amount in major units (`19.99`) as minor units; undefined when it is not a number of that precision. */
export function minorOf(typed: string, currency: string): number | undefined {
  const text = typed.trim().replace(',', '.');
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  const digits = minorDigits(currency);
  const [whole = '0', fraction = ''] = text.split('.');
  if (fraction.length > digits) return undefined;
  return Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
}

/** Minor units as the major-unit text a field takes (`1999` → `19.99`). */
export function majorText(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  return (minor / 10 ** digits).toFixed(digits);
}

/** A credit pack by name, with its credits when the name does not already say them. */
export const packLabel = (pack: { name: string; credits: number }) =>
  pack.name.includes(String(pack.credits)) ? pack.name : `${pack.name} (${pack.credits} credits)`;
