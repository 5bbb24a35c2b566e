import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Checkbox, Input, Label, SearchField } from 'react-aria-components';
import { useServiceIssue } from '../../ui/service-issues';
import { TERM_WORDS, TERMS_API, type Term, type TermKind } from './terms-api';

/** The API's largest page; the names are read page after page up to a bound no store comes near. */
const PAGE = 100;
const MOST_PAGES = 50;

/** Every term of a kind, by name: they name a game's links and are what a picker offers. */
export function useTermNames(kind: TermKind) {
  const list = useQuery({
    queryKey: ['store', kind, 'names'],
    queryFn: async () => {
      const terms: Term[] = [];
      for (let page = 1; page <= MOST_PAGES; page += 1) {
        const answer = await TERMS_API[kind].list({ page, per_page: PAGE, sort: 'name:asc' });
        terms.push(...answer.data);
        if (answer.data.length < PAGE || terms.length >= answer.meta.total) break;
      }
      return terms;
    },
    staleTime: 30_000,
  });
  const names = new Map<number, string>((list.data ?? []).map((term) => [term.id, term.name]));
  return { list, names, nameOf: (id: number) => names.get(id) ?? `${TERM_WORDS[kind].noun} #${id}` };
}

interface TermPickerProps {
  kind: TermKind;
  value: number[];
  onChange: (ids: number[]) => void;
}

/**
 * Genres, developers or publishers picked by name: a box per term, a search among them when the
 * list is long, and the chosen ones named above the list.
 */
export function TermPicker({ kind, value, onChange }: TermPickerProps) {
  const words = TERM_WORDS[kind];
  const [search, setSearch] = useState('');
  const all = useTermNames(kind);
  const terms = all.list.data ?? [];
  const wanted = search.trim().toLowerCase();
  const shown = wanted === '' ? terms : terms.filter((term) => term.name.toLowerCase().includes(wanted));
  const chosen = new Set(value);
  const set = (id: number, on: boolean) => onChange(on ? [...value, id] : value.filter((each) => each !== id));
  const issue = useServiceIssue(words.linkField);

  return (
    <fieldset className="term-picker">
      <legend>{words.title}</legend>
      <p className="term-chosen hint" aria-live="polite">
        {value.length === 0 ? `No ${words.noun} chosen.` : `Chosen: ${value.map(all.nameOf).join(', ')}`}
      </p>
      {terms.length > 10 ? (
        <SearchField className="field" value={search} onChange={setSearch}>
          <Label>{`Find a ${words.noun}`}</Label>
          {/* Enter here narrows the list; it must not submit the game's form. */}
          <Input onKeyDown={(event) => event.key === 'Enter' && event.preventDefault()} />
        </SearchField>
      ) : null}
      <div className="picker">
        {all.list.isPending ? (
          <p className="loading">Loading…</p>
        ) : shown.length === 0 ? (
          <p className="muted">
            {wanted === '' ? `No ${kind} yet: create them under Store, ${words.title}.` : `No ${words.noun} matches.`}
          </p>
        ) : (
          shown.map((term) => (
            <Checkbox
              key={term.id}
              className="checkbox picker-box"
              isSelected={chosen.has(term.id)}
              onChange={(on) => set(term.id, on)}
            >
              <span className="checkbox-box" aria-hidden="true" />
              <span className="picker-label">{term.name}</span>
            </Checkbox>
          ))
        )}
      </div>
      {issue === undefined ? null : (
        <p className="error" role="alert">
          {issue}
        </p>
      )}
    </fieldset>
  );
}
