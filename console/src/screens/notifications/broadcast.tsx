import { unwrap } from '@platform-api/sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Checkbox, Form } from 'react-aria-components';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { useWrite } from '../../api/writes';
import { Confirm } from '../../ui/confirm';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { ProblemNote } from '../../ui/problem-note';
import { instantOf } from '../../ui/time';
import { NotificationsNav } from './notifications-nav';
import { describeSegment, EMPTY_SEGMENT, type SegmentForm, segmentOf } from './segment';
import './notifications.css';
import { MoreFilters } from '../../ui/more-filters';
import { SegmentExtraFields, segmentExtrasSet } from '../users/segment-fields';
import { usePublishedTemplates } from '../email/published-templates';

// The spec's bounds of operation 19's nested fields (REQUEST_FIELDS lists top-level fields only).
const TITLE_MAX = 200;
const BODY_MAX = 4000;
const ACTION_URL_MAX = 2000;
const TEMPLATE_KEY_MAX = 100;
/** How long typing in the filters settles before the count is asked for again. */
const COUNT_DELAY_MS = 250;

const KINDS = ['info', 'success', 'warning', 'billing', 'social', 'system'] as const;
type Kind = (typeof KINDS)[number];
const STATUS_CHOICES = [
  { id: '', label: 'Active (default)' },
  { id: 'active', label: 'Active' },
  { id: 'banned', label: 'Banned' },
  { id: 'deleted', label: 'Deleted' },
];
const SUBSCRIPTION_CHOICES = [
  { id: '', label: 'Any' },
  { id: 'true', label: 'Has a subscription' },
  { id: 'false', label: 'No subscription' },
];

function useSettled<Value>(value: Value, delay: number): Value {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return settled;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** Operation 19: who (the users-list filters, counted before sending), how (the channels the caller holds), what. */
export default function BroadcastPage() {
  const permissions = usePermissions();
  const canInApp = permissions.can('announcements.write');
  const canEmail = permissions.can('email.send');
  const [form, setForm] = useState<SegmentForm>(EMPTY_SEGMENT);
  const [inApp, setInApp] = useState(false);
  const [email, setEmail] = useState(false);
  const [kind, setKind] = useState<Kind>('info');
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [actionUrl, setActionUrl] = useState('');
  const [startsAt, setStartsAt] = useState('');
  const [endsAt, setEndsAt] = useState('');
  const [templateKey, setTemplateKey] = useState('');
  // Senders who may read email pick a published template by name; others type its key.
  const canListTemplates = permissions.can('email.read');
  const templates = usePublishedTemplates(canListTemplates && canEmail);
  const [sent, setSent] = useState<{ recipients: number | null; created: number | null; queued: number | null }>();
  const set = (changes: Partial<SegmentForm>) => setForm((current) => ({ ...current, ...changes }));

  const segment = useSettled(segmentOf(form), COUNT_DELAY_MS);
  const count = useQuery({
    queryKey: ['notifications', 'preview', segment],
    queryFn: () => unwrap(api.POST('/v1/admin/notifications/broadcast/preview', { body: { segment } })),
    placeholderData: keepPreviousData,
    enabled: canInApp || canEmail,
  });

  const channels = [inApp && canInApp ? 'in-app notification' : null, email && canEmail ? 'email' : null].filter(
    (channel): channel is string => channel !== null,
  );
  const recipients = count.data?.recipients;
  const tooMany = count.data !== undefined && count.data.recipients > count.data.max;
  const ready =
    channels.length > 0 &&
    (!inApp || title.trim() !== '') &&
    (!email || templateKey.trim() !== '') &&
    recipients !== undefined &&
    recipients > 0 &&
    !tooMany &&
    !count.isPlaceholderData;

  const send = useWrite({
    call: () =>
      unwrap(
        api.POST('/v1/admin/notifications/broadcast', {
          body: {
            segment,
            ...(inApp && canInApp
              ? {
                  notification: {
                    kind,
                    title: title.trim(),
                    ...(body.trim() === '' ? {} : { body }),
                    ...(actionUrl.trim() === '' ? {} : { action_url: actionUrl.trim() }),
                    ...(instantOf(startsAt) === undefined ? {} : { starts_at: instantOf(startsAt) }),
                    ...(instantOf(endsAt) === undefined ? {} : { ends_at: instantOf(endsAt) }),
                  },
                }
              : {}),
            ...(email && canEmail ? { email: { template_key: templateKey.trim(), vars: {} } } : {}),
          },
        }),
      ),
    success: 'Broadcast sent',
    failure: 'Could not send the broadcast',
    invalidates: [['notifications']],
    onDone: (result) =>
      setSent({
        recipients: result.recipients,
        created: result.notification?.created ?? null,
        queued: result.email?.queued ?? null,
      }),
  });

  if (!canInApp && !canEmail) {
    return (
      <section className="stack">
        <h1>Notifications</h1>
        <NotificationsNav />
        <p>Broadcasting needs announcements.write (in-app) or email.send (email).</p>
      </section>
    );
  }

  return (
    <section className="stack">
      <h1>Notifications</h1>
      <NotificationsNav />
      <h2>New broadcast</h2>
      <Form className="broadcast-form" onSubmit={(event) => event.preventDefault()}>
        <fieldset className="broadcast-part">
          <legend>Who: the users list's filters</legend>
          <div className="filters">
            <TextInput label="Email or name contains" value={form.q} maxLength={200} onChange={(q) => set({ q })} />
            <ChoiceInput
              label="Status"
              value={form.status}
              choices={STATUS_CHOICES}
              onChange={(status) => set({ status })}
            />
            <ChoiceInput
              label="Subscription"
              value={form.has_subscription}
              choices={SUBSCRIPTION_CHOICES}
              onChange={(value) => set({ has_subscription: value })}
            />
            <MoreFilters isSet={segmentExtrasSet(form)}>
              <SegmentExtraFields values={form} onChange={set} />
            </MoreFilters>
          </div>
          <p className="segment-count" role="status" aria-live="polite" data-testid="segment-count">
            {count.error !== null ? null : recipients === undefined ? (
              'Counting…'
            ) : tooMany ? (
              <>
                More than {plural(count.data?.max ?? 0, 'user')} match: narrow the filters (a broadcast reaches at most
                that many).
              </>
            ) : recipients === 0 ? (
              'No user matches these filters.'
            ) : (
              <>
                <strong>{plural(recipients, 'user')}</strong> {recipients === 1 ? 'matches' : 'match'}:{' '}
                {describeSegment(segment)}.
              </>
            )}
          </p>
          {count.error === null ? null : <ProblemNote error={count.error} />}
        </fieldset>

        <fieldset className="broadcast-part">
          <legend>How</legend>
          <div className="channels">
            {canInApp ? (
              <Checkbox className="checkbox channel" isSelected={inApp} onChange={setInApp}>
                <span className="checkbox-box" aria-hidden="true" />
                <span>In-app notification</span>
              </Checkbox>
            ) : null}
            {canEmail ? (
              <Checkbox className="checkbox channel" isSelected={email} onChange={setEmail}>
                <span className="checkbox-box" aria-hidden="true" />
                <span>Email from a published template</span>
              </Checkbox>
            ) : null}
          </div>
          <p className="hint">
            {canInApp && canEmail
              ? 'You may send both.'
              : canInApp
                ? 'Email needs email.send.'
                : 'In-app notifications need announcements.write.'}
          </p>
        </fieldset>

        {inApp && canInApp ? (
          <fieldset className="broadcast-part">
            <legend>In-app notification</legend>
            <TextInput label="Title" value={title} onChange={setTitle} isRequired maxLength={TITLE_MAX} />
            <TextInput label="Text (optional)" value={body} onChange={setBody} maxLength={BODY_MAX} multiline />
            <div className="inline-form">
              <ChoiceInput
                label="Kind"
                value={kind}
                choices={KINDS.map((id) => ({ id, label: id }))}
                onChange={(value) => setKind(value as Kind)}
              />
              <TextInput
                label="Link (optional)"
                value={actionUrl}
                onChange={setActionUrl}
                maxLength={ACTION_URL_MAX}
                description="A site path (/billing) or an http(s) address."
              />
            </div>
            <div className="inline-form">
              <TextInput
                label="Shown from (empty: at once)"
                type="datetime-local"
                value={startsAt}
                onChange={setStartsAt}
              />
              <TextInput
                label="Shown until (empty: always)"
                type="datetime-local"
                value={endsAt}
                onChange={setEndsAt}
              />
            </div>
            {Object.keys(segment).length === 0 ? (
              <p className="hint">To every active user: it also reaches users who sign up later.</p>
            ) : null}
          </fieldset>
        ) : null}

        {email && canEmail ? (
          <fieldset className="broadcast-part">
            <legend>Email</legend>
            {canListTemplates ? (
              <>
                <ChoiceInput
                  label="Template"
                  value={templateKey}
                  choices={[{ id: '', label: 'Choose a published template' }, ...templates.choices]}
                  onChange={setTemplateKey}
                />
                <p className="hint">
                  {templates.loaded && templates.choices.length === 0
                    ? 'No template is published yet: publish one under Email → Templates first.'
                    : 'Its published version is sent; unsubscribed addresses are skipped for marketing mail.'}
                </p>
              </>
            ) : (
              <TextInput
                label="Template key"
                value={templateKey}
                onChange={setTemplateKey}
                isRequired
                maxLength={TEMPLATE_KEY_MAX}
                description="Its published version is sent; unsubscribed addresses are skipped for marketing mail. (Listing templates needs email.read.)"
              />
            )}
          </fieldset>
        ) : null}

        <div className="dialog-actions broadcast-actions">
          <Confirm
            trigger="Send…"
            triggerClassName="btn btn-primary"
            isDisabled={!ready || send.isPending}
            disabledReason={ready ? undefined : 'Choose a channel, fill it in, and match at least one user.'}
            title="Send this broadcast?"
            consequence={
              <p>
                Send {channels.join(' and ')} to <strong>{plural(recipients ?? 0, 'user')}</strong> (
                {describeSegment(segment)}). It cannot be recalled.
              </p>
            }
            confirmLabel={`Send to ${plural(recipients ?? 0, 'user')}`}
            onConfirm={() => send.mutateAsync()}
          />
        </div>
      </Form>

      {sent === undefined ? null : (
        <section className="card broadcast-result" aria-labelledby="broadcast-result-heading">
          <h2 id="broadcast-result-heading">Sent</h2>
          <dl className="facts">
            <dt>Recipients</dt>
            <dd>
              {sent.recipients === null ? 'Everyone, including later sign-ups' : sent.recipients.toLocaleString()}
            </dd>
            <dt>Notifications created</dt>
            <dd>{sent.created === null ? 'not requested' : sent.created.toLocaleString()}</dd>
            <dt>Emails queued</dt>
            <dd>{sent.queued === null ? 'not requested' : sent.queued.toLocaleString()}</dd>
          </dl>
        </section>
      )}
    </section>
  );
}
