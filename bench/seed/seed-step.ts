/** One set-based statement group of the seed, timed and reported on its own. */
export interface SeedStep {
  label: string;
  sql: string;
}
