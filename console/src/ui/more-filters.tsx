import { type ReactNode, useState } from 'react';
import { Button } from 'react-aria-components';

/**
 * Filters behind "More filters": shown on demand, and always while one of them holds a value (a
 * link or the address may set them), so a filter in force is never hidden.
 */
export function MoreFilters({ isSet, children }: { isSet: boolean; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const shown = open || isSet;
  return (
    <>
      {isSet ? null : (
        <Button className="btn btn-quiet" onPress={() => setOpen(!open)} aria-expanded={shown}>
          {shown ? 'Fewer filters' : 'More filters'}
        </Button>
      )}
      {shown ? <div className="filters-more">{children}</div> : null}
    </>
  );
}

/** Whether any of these filter values is set. */
export const anySet = (...values: string[]) => values.some((value) => value !== '');
