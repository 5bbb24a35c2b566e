import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Checkbox, Input, Label, SearchField } from 'react-aria-components';
import { useServiceIssue } from '../../ui/service-issues';
import { TERM_WORDS, TERMS_API, type Term, type TermKind } from './terms-api';

/** The most a list page holds: the first page of names, in name order, is what a picker offers before a search. */
const FIRST_NAMES = 100;

/** The first hundred terms of a kind by name: enough to name a game's links and to pick from. */
export function useTermNames(kind: TermKind) {
  const list = useQuery({
    queryKey: ['store', kind, 'names'],
    queryFn: () => TERMS_API[kind].list({ per_page: FIRST_NAMES, sort: 'name:asc' }),
    staleTime: 30_000,
  });
  const names = new Map<number, string>((list.data?.data ?? []).map((term) => [term.id, term.name]));
  return { list, names, nameOf: (id: number) => names.get(id) ?? `${TERM_WORDS[kind].noun} #${id}` };
}

interface TermPickerProps {
  kind: TermKind;
  value: number[];
  onChange: (ids: number[]) => void;
}

/**
 * Genres, developers or publishers picked by name: a box per term, a search (the service's `q`)
 * when the list is long, and the chosen ones named above the list.
 */
export function TermPicker({ kind, value, onChange }: TermPickerProps) {
  const words = TERM_WORDS[kind];
  const [search, setSearch] = useState('');
  const all = useTermNames(kind);
  const found = useQuery({
    queryKey: ['store', kind, 'pick', search],
    enabled: search !== '',
    queryFn: () => TERMS_API[kind].list({ q: search, per_page: FIRST_NAMES, sort: 'name:asc' }),
  });
  const shown: Term[] = search === '' ? (all.list.data?.data ?? []) : (found.data?.data ?? []);
  const chosen = new Set(value);
  const [seen] = useState(() => new Map<number, string>());
  for (const term of [...(all.list.data?.data ?? []), ...(found.data?.data ?? [])]) seen.set(term.id, term.name);
  const set = (id: number, on: boolean) => onChange(on ? [...value, id] : value.filter((each) => each !== id));
  const total = all.list.data?.meta.total ?? 0;
  const issue = useServiceIssue(words.linkField);

  return (
    <fieldset className="term-picker">
      <legend>{words.title}</legend>
      <p className="term-chosen hint" aria-live="polite">
        {value.length === 0
          ? `No ${words.noun} chosen.`
          : `Chosen: ${value.map((id) => seen.get(id) ?? `${words.noun} #${id}`).join(', ')}`}
      </p>
      {total > 10 || search !== '' ? (
        <SearchField className="field" value={search} onChange={setSearch}>
          <Label>{`Find a ${words.noun}`}</Label>
          <Input />
        </SearchField>
      ) : null}
      <div className="picker">
        {all.list.isPending || (search !== '' && found.isPending) ? (
          <p className="loading">Loading…</p>
        ) : shown.length === 0 ? (
          <p className="muted">
            {search === '' ? `No ${kind} yet: create them under Store, ${words.title}.` : `No ${words.noun} matches.`}
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
