import { type paths, REQUEST_FIELDS } from '@platform-api/sdk';
import { useState } from 'react';
import { Switch } from 'react-aria-components';
import { ruleOf } from '../../api/field-rules';
import type { WriteOptions } from '../../api/writes';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';

export type RuleInput =
  paths['/v1/admin/ops/incident-rules']['put']['requestBody']['content']['application/json']['rules'][number];

const PUT = 'PUT /v1/admin/ops/incident-rules';
const field = (name: string) => ruleOf(PUT, `rules[].${name}`);
const SIGNALS = ((REQUEST_FIELDS[PUT]?.['rules[].signal']?.enum ?? []) as string[]).map((id) => ({ id, label: id }));
const LEVELS = [
  { id: 'degraded', label: 'Degraded' },
  { id: 'lockdown', label: 'Lockdown' },
];
const NUMBERS = ['threshold', 'window_seconds', 'min_requests', 'hold_seconds', 'cooldown_seconds'] as const;
const LABELS: Record<(typeof NUMBERS)[number], string> = {
  threshold: 'Threshold (failure ratio, or milliseconds for database_latency)',
  window_seconds: 'Window (seconds)',
  min_requests: 'At least this many requests',
  hold_seconds: 'Healthy this long before clearing (seconds)',
  cooldown_seconds: 'Quiet this long after a change (seconds)',
};

export const NEW_RULE: RuleInput = {
  key: '',
  signal: 'http_5xx',
  threshold: 0.5,
  window_seconds: 60,
  min_requests: 20,
  level: 'degraded',
  auto_clear: true,
  hold_seconds: 120,
  cooldown_seconds: 300,
  enabled: true,
};

/**
 * One incident rule's fields, bounded as the API bounds them. The caller's write saves the whole
 * list with this rule in it; `issuesOf` reads the service's issues about this rule by field.
 */
export function IncidentRuleDialog<Result>({
  rule,
  isNew,
  save,
  issuesOf,
  onClose,
}: {
  rule: RuleInput;
  isNew: boolean;
  /** The write of the list with the edited rule in it. */
  save: (rule: RuleInput) => WriteOptions<void, Result>;
  issuesOf: (error: unknown) => Record<string, string>;
  onClose: () => void;
}) {
  const [draft, setDraft] = useState(rule);
  const [numbers, setNumbers] = useState(() => Object.fromEntries(NUMBERS.map((name) => [name, String(rule[name])])));
  const keyRule = field('key');
  const edited: RuleInput = {
    ...draft,
    ...Object.fromEntries(NUMBERS.map((name) => [name, Number(numbers[name])])),
  };

  return (
    <FormDialog
      title={isNew ? 'New incident rule' : `Rule ${rule.key}`}
      submitLabel="Save rule"
      wide
      onClose={onClose}
      issuesOf={issuesOf}
      write={save(edited)}
    >
      {isNew ? (
        <TextInput
          label="Key"
          name="key"
          value={draft.key}
          onChange={(key) => setDraft({ ...draft, key })}
          isRequired
          pattern={
            keyRule.pattern === undefined
              ? undefined
              : { source: keyRule.pattern, hint: 'Lower-case letters, digits, _ and -; starting with a letter.' }
          }
          autoFocus
        />
      ) : null}
      <div className="inline-form">
        <ChoiceInput
          label="Signal"
          value={draft.signal}
          choices={SIGNALS}
          onChange={(signal) => setDraft({ ...draft, signal: signal as RuleInput['signal'] })}
        />
        <ChoiceInput
          label="Sets the level"
          value={draft.level}
          choices={LEVELS}
          onChange={(level) => setDraft({ ...draft, level: level as RuleInput['level'] })}
        />
      </div>
      <div className="inline-form">
        {NUMBERS.map((name) => (
          <TextInput
            key={name}
            label={LABELS[name]}
            name={name}
            type="number"
            value={numbers[name] ?? ''}
            onChange={(value) => setNumbers({ ...numbers, [name]: value })}
            isRequired={field(name).required}
            minimum={field(name).minimum}
            maximum={field(name).maximum}
            integer={field(name).integer}
          />
        ))}
      </div>
      <Switch
        className="switch switch-labelled"
        isSelected={draft.auto_clear}
        onChange={(on) => setDraft({ ...draft, auto_clear: on })}
      >
        <span className="switch-track" aria-hidden="true" />
        <span>Clears the level itself once healthy</span>
      </Switch>
      <Switch
        className="switch switch-labelled"
        isSelected={draft.enabled ?? true}
        onChange={(on) => setDraft({ ...draft, enabled: on })}
      >
        <span className="switch-track" aria-hidden="true" />
        <span>Enabled</span>
      </Switch>
    </FormDialog>
  );
}
