import { isPlatformApiError, type ListBody, unwrap } from '@platform-api/sdk';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Switch } from 'react-aria-components';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { describeProblem } from '../../api/problems';
import { sessionStore } from '../../api/session';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { ActorLink } from '../../ui/names';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { CatalogNav } from './catalog-nav';

type Rules = ListBody<'/v1/admin/catalog/referral-rules'>;

const PUT = 'PUT /v1/admin/catalog/referral-rules';
const NEEDS_WRITE = 'Needs content.write';
const EVENTS = [
  { id: 'signup', label: 'Signs up' },
  { id: 'first_purchase', label: 'Completes a first payment' },
];
const credits = (amount: number) => `${amount.toLocaleString('en-GB')} credit${amount === 1 ? '' : 's'}`;
const RULES_KEY = ['catalog', 'referral-rules'];

/** The referral programme: what inviting and being invited earn, and when; replaced whole. */
export default function ReferralRulesPage() {
  const canWrite = usePermissions().can('content.write');
  const rules = useQuery({
    queryKey: RULES_KEY,
    queryFn: () => unwrap(api.GET('/v1/admin/catalog/referral-rules')),
  });
  const data = rules.data;
  return (
    <section className="stack">
      <h1>Catalog</h1>
      <CatalogNav />
      <header className="page-header">
        <h2>Referral rules</h2>
        {data === undefined ? null : <ChangeRules rules={data} canWrite={canWrite} />}
      </header>
      {rules.error === null ? null : <ProblemNote error={rules.error} />}
      {data === undefined ? null : (
        <dl className="facts">
          <dt>Programme</dt>
          <dd>{data.is_active ? 'Active: referrals earn rewards' : 'Off: no referral earns anything'}</dd>
          <dt>The inviting player gets</dt>
          <dd>{credits(data.referrer_reward_credits)} per qualified referral</dd>
          <dt>The invited player gets</dt>
          <dd>{credits(data.referee_reward_credits)}</dd>
          <dt>A referral qualifies when the invited player</dt>
          <dd>{EVENTS.find((event) => event.id === data.qualifying_event)?.label ?? data.qualifying_event}</dd>
          <dt>Within</dt>
          <dd>
            {data.qualify_within_days === null ? 'no time limit' : `${data.qualify_within_days} days of signing up`}
          </dd>
          <dt>Rewards per inviting player</dt>
          <dd>{data.max_rewards_per_referrer === null ? 'no limit' : `at most ${data.max_rewards_per_referrer}`}</dd>
          <dt>Version</dt>
          <dd>{data.version === 0 ? 'never saved (the defaults)' : data.version}</dd>
          <dt>Last changed</dt>
          <dd>
            {data.updated_at === null ? (
              <span className="muted">—</span>
            ) : (
              <>
                <Time value={data.updated_at} /> by{' '}
                <ActorLink
                  id={data.updated_by}
                  label={
                    data.updated_by === sessionStore.get()?.subject
                      ? `you (${sessionStore.get()?.email ?? 'signed in'})`
                      : undefined
                  }
                />
              </>
            )}
          </dd>
        </dl>
      )}
    </section>
  );
}

/** A 409 says someone saved first: the stored rules are read again, and the form says so. */
function rulesIssues(error: unknown): Record<string, string> {
  const { message, fields } = describeProblem(error);
  if (isPlatformApiError(error) && error.code === 'conflict') {
    const details = (error.details ?? {}) as { current_version?: unknown };
    return {
      '': `Someone saved the rules while you edited them (now version ${String(details.current_version)}). Save again to replace theirs with yours, or cancel to see theirs first.`,
    };
  }
  if (isPlatformApiError(error) && error.code === 'invalid_request') {
    const reason = (error.details as { reason?: unknown } | undefined)?.reason;
    return { '': typeof reason === 'string' ? `${message} ${reason[0]?.toUpperCase()}${reason.slice(1)}.` : message };
  }
  return fields;
}

function ChangeRules({ rules, canWrite }: { rules: Rules; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const [referrer, setReferrer] = useState('');
  const [referee, setReferee] = useState('');
  const [event, setEvent] = useState('signup');
  const [withinDays, setWithinDays] = useState('');
  const [maxRewards, setMaxRewards] = useState('');
  const [active, setActive] = useState(false);
  const rule = (field: string) => ruleOf(PUT, field);
  const reset = () => {
    setReferrer(String(rules.referrer_reward_credits));
    setReferee(String(rules.referee_reward_credits));
    setEvent(rules.qualifying_event);
    setWithinDays(rules.qualify_within_days === null ? '' : String(rules.qualify_within_days));
    setMaxRewards(rules.max_rewards_per_referrer === null ? '' : String(rules.max_rewards_per_referrer));
    setActive(rules.is_active);
  };

  return (
    <FormDialog<Rules>
      title="Change the referral rules"
      submitLabel="Save rules"
      wide
      trigger={{
        label: 'Change rules…',
        className: 'btn btn-primary',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={reset}
      issuesOf={(error) => {
        if (isPlatformApiError(error) && error.code === 'conflict')
          void queryClient.invalidateQueries({ queryKey: RULES_KEY });
        return rulesIssues(error);
      }}
      write={{
        call: () =>
          unwrap(
            api.PUT('/v1/admin/catalog/referral-rules', {
              body: {
                referrer_reward_credits: Number(referrer),
                referee_reward_credits: Number(referee),
                qualifying_event: event as Rules['qualifying_event'],
                qualify_within_days: withinDays.trim() === '' ? null : Number(withinDays),
                max_rewards_per_referrer: maxRewards.trim() === '' ? null : Number(maxRewards),
                is_active: active,
                expected_version: rules.version,
              },
            }),
          ),
        success: (saved) => `Referral rules saved (version ${saved.version})`,
        failure: 'Could not save the referral rules',
        invalidates: [RULES_KEY],
      }}
    >
      <p className="hint">The whole ruleset is replaced; the next referral that qualifies follows the new rules.</p>
      <Switch className="switch switch-labelled" isSelected={active} onChange={setActive}>
        <span className="switch-track" aria-hidden="true" />
        <span>Programme active</span>
      </Switch>
      <div className="inline-form">
        <TextInput
          label="Inviting player gets (credits)"
          name="referrer_reward_credits"
          type="number"
          integer
          value={referrer}
          onChange={setReferrer}
          isRequired
          minimum={rule('referrer_reward_credits').minimum}
          maximum={rule('referrer_reward_credits').maximum}
          autoFocus
        />
        <TextInput
          label="Invited player gets (credits)"
          name="referee_reward_credits"
          type="number"
          integer
          value={referee}
          onChange={setReferee}
          isRequired
          minimum={rule('referee_reward_credits').minimum}
          maximum={rule('referee_reward_credits').maximum}
        />
      </div>
      <ChoiceInput label="Qualifies when the invited player" value={event} choices={EVENTS} onChange={setEvent} />
      <div className="inline-form">
        <TextInput
          label="Within days of signing up"
          name="qualify_within_days"
          type="number"
          integer
          value={withinDays}
          onChange={setWithinDays}
          minimum={rule('qualify_within_days').minimum}
          maximum={rule('qualify_within_days').maximum}
          description="Empty: no time limit."
        />
        <TextInput
          label="Most rewards per inviting player"
          name="max_rewards_per_referrer"
          type="number"
          integer
          value={maxRewards}
          onChange={setMaxRewards}
          minimum={rule('max_rewards_per_referrer').minimum}
          maximum={rule('max_rewards_per_referrer').maximum}
          description="Empty: no limit."
        />
      </div>
    </FormDialog>
  );
}
