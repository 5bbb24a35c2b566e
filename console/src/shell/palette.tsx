import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import {
  Autocomplete,
  Button,
  Dialog,
  DialogTrigger,
  Heading,
  Input,
  Label,
  Menu,
  MenuItem,
  Modal,
  ModalOverlay,
  SearchField,
  Text,
} from 'react-aria-components';
import { useLocation } from 'wouter';
import { api } from '../api/client';
import type { Permissions } from '../api/permissions';
import { billingTargets, isUuid, looksLikeEmail, screenTargets, type Target } from './palette-targets';

/** How long typing settles before the palette asks the service. */
const SEARCH_DELAY_MS = 250;
const PLAYER_RESULTS = 6;

function useSettled(value: string, delay: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return settled;
}

/** A lookup that may find nothing: a 404 is simply no result. */
const quietly = { retry: false, staleTime: 30_000 } as const;

/** What the typed text finds: screens at once, then players, tickets, sessions and billing ids from the service. */
function useTargets(text: string, permissions: Permissions): { targets: Target[]; searching: boolean } {
  const settled = useSettled(text.trim(), SEARCH_DELAY_MS);
  const can = permissions.can;
  const uuid = isUuid(settled);
  const players = useQuery({
    queryKey: ['palette', 'players', settled],
    enabled: can('users.read') && settled.length >= 2 && !uuid,
    queryFn: () => unwrap(api.GET('/v1/admin/users', { params: { query: { q: settled, per_page: PLAYER_RESULTS } } })),
    ...quietly,
  });
  const user = useQuery({
    queryKey: ['palette', 'user', settled],
    enabled: can('users.read') && uuid,
    queryFn: () => unwrap(api.GET('/v1/admin/users/{id}', { params: { path: { id: settled } } })),
    ...quietly,
  });
  const ticket = useQuery({
    queryKey: ['palette', 'ticket', settled],
    enabled: can('support.read') && uuid,
    queryFn: () => unwrap(api.GET('/v1/admin/support/tickets/{id}', { params: { path: { id: settled } } })),
    ...quietly,
  });
  const session = useQuery({
    queryKey: ['palette', 'session', settled],
    enabled: can('runtime.read') && uuid,
    queryFn: () => unwrap(api.GET('/v1/admin/runtime/sessions/{id}', { params: { path: { id: settled } } })),
    ...quietly,
  });

  const targets: Target[] = [];
  for (const player of players.data?.data ?? [])
    targets.push({
      id: `user:${player.id}`,
      label: `${player.email ?? '(no email)'}${player.display_name ? ` — ${player.display_name}` : ''}`,
      kind: 'Player',
      path: `/users/${player.id}`,
    });
  if (user.data !== undefined)
    targets.push({
      id: `user:${user.data.id}`,
      label: user.data.email ?? user.data.id,
      kind: 'Player',
      path: `/users/${user.data.id}`,
    });
  if (ticket.data !== undefined)
    targets.push({
      id: `ticket:${ticket.data.id}`,
      label: ticket.data.subject,
      kind: 'Ticket',
      path: `/support/tickets/${ticket.data.id}`,
    });
  if (session.data?.user_id)
    targets.push({
      id: `session:${session.data.id}`,
      label: `${session.data.game_title ?? 'Game'} session (${session.data.status}): its player`,
      kind: 'Session',
      path: `/users/${session.data.user_id}`,
    });
  targets.push(...billingTargets(settled, can));
  // Screens answer as one types, without waiting for the service; an email is never a screen name.
  if (!looksLikeEmail(text) && !isUuid(text)) targets.push(...screenTargets(text, can));

  const searching = settled !== text.trim() || [players, user, ticket, session].some((query) => query.isFetching);
  return { targets, searching };
}

/**
 * Jump anywhere: an email, a user, ticket or session id, a payment id, or a screen's name.
 * Ctrl-K or ⌘K opens it from any page; the button in the header opens it on touch.
 */
export function Palette({ permissions }: { permissions: Permissions }) {
  const [isOpen, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [, navigate] = useLocation();
  const { targets, searching } = useTargets(text, permissions);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setOpen((open) => !open);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const openChanged = (open: boolean) => {
    setOpen(open);
    if (!open) setText('');
  };
  const go = (path: string) => {
    openChanged(false);
    navigate(path);
  };

  return (
    <DialogTrigger isOpen={isOpen} onOpenChange={openChanged}>
      <Button className="btn btn-quiet palette-button" aria-keyshortcuts="Control+K Meta+K">
        <span aria-hidden="true">⌕</span> Go to… <kbd className="palette-kbd">Ctrl K</kbd>
      </Button>
      <ModalOverlay className="overlay palette-overlay" isDismissable>
        <Modal className="modal palette">
          <Dialog className="dialog palette-dialog" aria-labelledby="palette-title">
            <Heading slot="title" id="palette-title" className="visually-hidden">
              Go to
            </Heading>
            <Autocomplete inputValue={text} onInputChange={setText}>
              <SearchField className="field palette-field" autoFocus>
                <Label>Email, id or screen</Label>
                <Input placeholder="ana@example.com, a user, ticket or payment id, or “audit”" />
                <Text slot="description" className="hint">
                  Results come as you type; Enter opens the highlighted one.
                </Text>
              </SearchField>
              <Menu
                className="palette-results"
                aria-label="Places"
                items={targets}
                onAction={(key) => {
                  const target = targets.find((each) => each.id === key);
                  if (target !== undefined) go(target.path);
                }}
                renderEmptyState={() => (
                  <p className="empty">
                    {searching ? 'Searching…' : text.trim() === '' ? 'Type to search.' : 'Nothing found.'}
                  </p>
                )}
              >
                {(target) => (
                  <MenuItem id={target.id} className="palette-item" textValue={`${target.kind}: ${target.label}`}>
                    <span className="palette-kind">{target.kind}</span>
                    <span className="palette-label">{target.label}</span>
                  </MenuItem>
                )}
              </Menu>
            </Autocomplete>
            <p className="visually-hidden" role="status" aria-live="polite">
              {searching ? '' : `${targets.length} ${targets.length === 1 ? 'result' : 'results'}`}
            </p>
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
