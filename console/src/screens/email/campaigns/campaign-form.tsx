import { type ListBody, type ListItem, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../../api/client';
import { ruleOf } from '../../../api/field-rules';
import { describeProblem } from '../../../api/problems';
import { ChoiceInput, TextInput } from '../../../ui/fields';
import { FormDialog } from '../../../ui/form-dialog';
import { usePublishedTemplates } from '../published-templates';

export type Campaign = ListItem<ListBody<'/v1/admin/email/campaigns'>>;
export const NEEDS_WRITE = 'Needs email.write';
export const NEEDS_SEND = 'Needs email.send';
const CREATE = 'POST /v1/admin/email/campaigns';
const NO_AUDIENCE = '';

/** Published templates and audiences by name, for a campaign's two pickers. */
function useChoices() {
  const templates = usePublishedTemplates();
  const audiences = useQuery({
    queryKey: ['email', 'audiences', 'choices'],
    queryFn: () =>
      unwrap(api.GET('/v1/admin/email/audiences', { params: { query: { per_page: 100, sort: 'name:asc' } } })),
  });
  return {
    templates: templates.choices,
    audiences: [
      { id: NO_AUDIENCE, label: 'None yet' },
      ...(audiences.data?.data ?? []).map((audience) => ({
        id: audience.id,
        label: `${audience.name} (${audience.member_count.toLocaleString('en-GB')} members)`,
      })),
    ],
    loaded: templates.loaded && audiences.data !== undefined,
  };
}

interface Fields {
  name: string;
  template: string;
  audience: string;
  vars: string;
  maxFailures: string;
}

/** The variables typed as JSON, or why they are not a JSON object (checked before any call). */
function varsOf(text: string): { vars: Record<string, unknown> } | { problem: string } {
  if (text.trim() === '') return { vars: {} };
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return { vars: parsed as Record<string, unknown> };
  } catch {
    // told below
  }
  return { problem: 'Not a JSON object: write it as {"name": value, …}.' };
}
const parsedVars = (text: string) => {
  const parsed = varsOf(text);
  return 'vars' in parsed ? parsed.vars : {};
};
const varsOk = (text: string) => 'vars' in varsOf(text);

function CampaignFields({ fields, set }: { fields: Fields; set: (change: Partial<Fields>) => void }) {
  const choices = useChoices();
  const templates =
    choices.templates.some((choice) => choice.id === fields.template) || fields.template === ''
      ? choices.templates
      : [{ id: fields.template, label: `${fields.template} (not published)` }, ...choices.templates];
  return (
    <>
      <TextInput
        label="Name"
        name="name"
        value={fields.name}
        onChange={(name) => set({ name })}
        isRequired
        minLength={ruleOf(CREATE, 'name').minLength}
        maxLength={ruleOf(CREATE, 'name').maxLength}
        autoFocus
      />
      {choices.loaded && templates.length === 0 ? (
        <p className="error">No template is published yet: publish one under Templates first.</p>
      ) : (
        <ChoiceInput
          label="Template (published ones)"
          value={fields.template}
          choices={templates}
          onChange={(template) => set({ template })}
        />
      )}
      <ChoiceInput
        label="Audience"
        value={fields.audience}
        choices={choices.audiences}
        onChange={(audience) => set({ audience })}
      />
      <TextInput
        label="Variables for every recipient (JSON, optional)"
        name="vars"
        value={fields.vars}
        onChange={(vars) => set({ vars })}
        error={(() => {
          const parsed = varsOf(fields.vars);
          return 'problem' in parsed ? parsed.problem : undefined;
        })()}
        description='Such as {"discount_percent": 30}. Each recipient also gets display_name, email and unsubscribe_url.'
        multiline
      />
      <TextInput
        label="Stop after this many failures in a row"
        name="max_consecutive_failures"
        type="number"
        integer
        value={fields.maxFailures}
        onChange={(maxFailures) => set({ maxFailures })}
        minimum={ruleOf(CREATE, 'max_consecutive_failures').minimum}
        maximum={ruleOf(CREATE, 'max_consecutive_failures').maximum}
        description="The campaign stops (resumable) after this many delivery failures in a row. Default 10."
      />
    </>
  );
}

const EMPTY: Fields = { name: '', template: '', audience: NO_AUDIENCE, vars: '', maxFailures: '' };

export function CreateCampaign({ canWrite, onCreated }: { canWrite: boolean; onCreated: (id: string) => void }) {
  const [fields, setFields] = useState<Fields>(EMPTY);
  const set = (change: Partial<Fields>) => setFields((current) => ({ ...current, ...change }));
  return (
    <FormDialog<{ id: string }>
      title="New campaign"
      submitLabel="Create draft"
      wide
      canSubmit={fields.template !== '' && varsOk(fields.vars)}
      trigger={{
        label: 'New campaign…',
        className: 'btn btn-primary',
        isDisabled: !canWrite,
        disabledReason: canWrite ? undefined : NEEDS_WRITE,
      }}
      onOpen={() => setFields(EMPTY)}
      issuesOf={describeFields}
      write={{
        call: () =>
          unwrap(
            api.POST('/v1/admin/email/campaigns', {
              body: {
                name: fields.name.trim(),
                template_key: fields.template,
                audience_id: fields.audience === NO_AUDIENCE ? null : fields.audience,
                vars: parsedVars(fields.vars),
                ...(fields.maxFailures === '' ? {} : { max_consecutive_failures: Number(fields.maxFailures) }),
              },
            }),
          ),
        success: `Campaign ${fields.name.trim()} created as a draft`,
        failure: 'Could not create the campaign',
        invalidates: [['email', 'campaigns']],
        onDone: (created) => onCreated(created.id),
      }}
    >
      <CampaignFields fields={fields} set={set} />
    </FormDialog>
  );
}

export function EditCampaign({ campaign, canWrite }: { campaign: Campaign; canWrite: boolean }) {
  const fieldsOf = (): Fields => ({
    name: campaign.name,
    template: campaign.template_key,
    audience: campaign.audience_id ?? NO_AUDIENCE,
    vars: Object.keys(campaign.vars).length === 0 ? '' : JSON.stringify(campaign.vars, null, 2),
    maxFailures: String(campaign.max_consecutive_failures),
  });
  const [fields, setFields] = useState<Fields>(fieldsOf);
  const set = (change: Partial<Fields>) => setFields((current) => ({ ...current, ...change }));
  return (
    <FormDialog<Campaign>
      title={`Edit ${campaign.name}`}
      submitLabel="Save"
      wide
      trigger={{ label: 'Edit…', isDisabled: !canWrite, disabledReason: canWrite ? undefined : NEEDS_WRITE }}
      canSubmit={varsOk(fields.vars)}
      onOpen={() => setFields(fieldsOf())}
      issuesOf={describeFields}
      write={{
        call: () =>
          unwrap(
            api.PATCH('/v1/admin/email/campaigns/{id}', {
              params: { path: { id: campaign.id } },
              body: {
                name: fields.name.trim(),
                template_key: fields.template,
                audience_id: fields.audience === NO_AUDIENCE ? null : fields.audience,
                vars: parsedVars(fields.vars),
                max_consecutive_failures: Number(fields.maxFailures),
              },
            }),
          ),
        success: (saved) => `Campaign ${saved.name} saved`,
        failure: 'Could not save the campaign',
        invalidates: [
          ['email', 'campaigns'],
          ['email', 'campaign', campaign.id],
        ],
      }}
    >
      <CampaignFields fields={fields} set={set} />
    </FormDialog>
  );
}

/** The service's refusal beside its field, or in words in the dialog when it names none (an unknown template). */
function describeFields(error: unknown): Record<string, string> {
  const problem = describeProblem(error);
  return Object.keys(problem.fields).length === 0 ? { '': problem.message } : problem.fields;
}
