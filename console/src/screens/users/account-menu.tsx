import { unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Button, Menu, MenuItem, MenuTrigger, Popover } from 'react-aria-components';
import { useLocation } from 'wouter';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import type { Permissions } from '../../api/permissions';
import { TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import type { UserProfile } from './types';

type Action = 'ban' | 'unban' | 'sign-out' | 'delete' | 'restore' | 'erase';

interface ActionSpec {
  label: string;
  title: string;
  /** What is lost or changed, in words. */
  consequence: string;
  submit: string;
  destructive: boolean;
  permission: 'users.write' | 'users.delete';
  operation: string;
  done: string;
  failure: string;
}

const specs = (name: string): Record<Action, ActionSpec> => ({
  ban: {
    label: 'Ban…',
    title: `Ban ${name}?`,
    consequence: 'They are signed out everywhere and cannot sign in or use the platform until unbanned.',
    submit: 'Ban',
    destructive: true,
    permission: 'users.write',
    operation: 'POST /v1/admin/users/{id}/ban',
    done: `${name} is banned`,
    failure: 'Could not ban',
  },
  unban: {
    label: 'Unban…',
    title: `Unban ${name}?`,
    consequence: 'They can sign in and use the platform again.',
    submit: 'Unban',
    destructive: false,
    permission: 'users.write',
    operation: 'POST /v1/admin/users/{id}/unban',
    done: `${name} is unbanned`,
    failure: 'Could not unban',
  },
  'sign-out': {
    label: 'Sign out everywhere…',
    title: `Sign ${name} out everywhere?`,
    consequence: 'Every login session ends; their current tokens stop working. They can sign in again.',
    submit: 'Sign out',
    destructive: false,
    permission: 'users.write',
    operation: 'POST /v1/admin/users/{id}/sign-out',
    done: `${name} is signed out everywhere`,
    failure: 'Could not sign out',
  },
  delete: {
    label: 'Delete…',
    title: `Delete ${name}?`,
    consequence: 'The account is closed and hidden from lists; it can be restored within the grace period.',
    submit: 'Delete',
    destructive: true,
    permission: 'users.delete',
    operation: 'DELETE /v1/admin/users/{id}',
    done: `${name} is deleted`,
    failure: 'Could not delete',
  },
  restore: {
    label: 'Restore…',
    title: `Restore ${name}?`,
    consequence:
      'Within the deletion’s grace period, the account is back as it was before it (a deletion the player asked for: active again, and the purge is called off). Past it, the service refuses.',
    submit: 'Restore',
    destructive: false,
    permission: 'users.delete',
    operation: 'POST /v1/admin/users/{id}/restore',
    done: `${name} is restored`,
    failure: 'Could not restore',
  },
  erase: {
    label: 'Delete for good…',
    title: `Delete ${name} for good?`,
    consequence:
      'The account, its profile and its personal data are erased at the identity provider and here. This cannot be undone.',
    submit: 'Delete for good',
    destructive: true,
    permission: 'users.delete',
    operation: 'DELETE /v1/admin/users/{id}',
    done: `${name} is deleted for good`,
    failure: 'Could not delete',
  },
});

/**
 * The rare and destructive account actions (ban, unban, sign out everywhere, delete, restore,
 * delete for good) in one menu; each opens its confirmation, which says what is lost and asks for
 * the audit reason. An action the caller lacks the permission for stays listed, disabled, naming it.
 */
export function AccountMenu({ user, permissions }: { user: UserProfile; permissions: Permissions }) {
  const [open, setOpen] = useState<Action | null>(null);
  const name = user.email ?? user.display_name ?? 'this player';
  const all = specs(name);
  const offered: Action[] = [
    ...(user.status === 'active' ? (['ban'] as const) : []),
    ...(user.status === 'banned' ? (['unban'] as const) : []),
    ...(user.status === 'deleted' ? (['restore'] as const) : (['sign-out', 'delete'] as const)),
    'erase',
  ];
  const disabled = offered.filter((action) => !permissions.can(all[action].permission));

  return (
    <>
      <MenuTrigger>
        <Button className="btn" aria-label={`Account actions for ${name}`}>
          Account actions ▾
        </Button>
        <Popover className="popover" placement="bottom end">
          <Menu className="menu" disabledKeys={disabled} onAction={(key) => setOpen(key as Action)}>
            {offered.map((action) => (
              <MenuItem
                key={action}
                id={action}
                textValue={all[action].label}
                className={all[action].destructive ? 'menu-item menu-item-danger' : 'menu-item'}
              >
                {all[action].label}
                {disabled.includes(action) ? <span className="hint"> needs {all[action].permission}</span> : null}
              </MenuItem>
            ))}
          </Menu>
        </Popover>
      </MenuTrigger>
      {open === null ? null : (
        <ActionDialog key={open} action={open} spec={all[open]} user={user} onClose={() => setOpen(null)} />
      )}
    </>
  );
}

function ActionDialog({
  action,
  spec,
  user,
  onClose,
}: {
  action: Action;
  spec: ActionSpec;
  user: UserProfile;
  onClose: () => void;
}) {
  const [, navigate] = useLocation();
  const [reason, setReason] = useState('');
  const [typed, setTyped] = useState('');
  const rule = ruleOf(spec.operation, 'reason');
  const path = { params: { path: { id: user.id } } };
  const call = async () => {
    const body = { reason: reason.trim() };
    if (action === 'ban') return unwrap(api.POST('/v1/admin/users/{id}/ban', { ...path, body }));
    if (action === 'unban') return unwrap(api.POST('/v1/admin/users/{id}/unban', { ...path, body }));
    if (action === 'sign-out') return unwrap(api.POST('/v1/admin/users/{id}/sign-out', { ...path, body }));
    if (action === 'restore') return unwrap(api.POST('/v1/admin/users/{id}/restore', { ...path, body }));
    return unwrap(api.DELETE('/v1/admin/users/{id}', { ...path, body: { ...body, hard: action === 'erase' } }));
  };
  return (
    <FormDialog
      title={spec.title}
      submitLabel={spec.submit}
      destructive={spec.destructive}
      canSubmit={action !== 'erase' || typed === 'DELETE'}
      onClose={onClose}
      write={{
        call,
        success: spec.done,
        failure: spec.failure,
        // An erased player has no page to refetch: the list is where staff go next.
        invalidates: action === 'erase' ? [['users']] : [['user', user.id], ['users']],
        onDone: () => {
          if (action === 'erase') navigate('/users');
        },
      }}
    >
      <p className="consequence">{spec.consequence}</p>
      <TextInput
        label="Reason"
        name="reason"
        value={reason}
        onChange={setReason}
        isRequired={rule.required}
        minLength={rule.minLength}
        maxLength={rule.maxLength}
        description="Kept in the audit log."
        multiline
        autoFocus
      />
      {action === 'erase' ? (
        <TextInput label="Type DELETE to confirm" name="confirmation" value={typed} onChange={setTyped} isRequired />
      ) : null}
    </FormDialog>
  );
}
