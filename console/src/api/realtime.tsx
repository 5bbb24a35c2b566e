import { connectRealtime, type EventFrame } from '@platform-api/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useEffect, useState, useSyncExternalStore } from 'react';
import { api } from './client';

/** How many dashboard events the home page's feed keeps (those since the console opened). */
const FEED_SIZE = 50;

/**
 * Which cached queries an event makes stale, by the event name's area (`users.banned` → `users`):
 * a list a dashboard event says changed refreshes itself.
 */
const STALE_BY_AREA: Record<string, string[][]> = {
  users: [['users'], ['user']],
  roles: [['roles'], ['role'], ['users'], ['me', 'permissions']],
  ops: [['ops']],
  panic_mode_changed: [['ops']],
  site: [['site']],
  store: [['store']],
  notifications: [['notifications']],
  // Heard on `area:support` and `area:email` by their own staff, without the dashboard.
  support: [['support']],
  email: [
    ['email', 'campaigns'],
    ['email', 'campaign'],
  ],
};

/** How many event ids are remembered: one event may come on the dashboard and its area's channel. */
const SEEN_SIZE = 200;

export interface LiveFeed {
  events: EventFrame[];
  connected: boolean;
}

const LiveContext = createContext<{ subscribe: (listener: () => void) => () => void; read: () => LiveFeed } | null>(
  null,
);

/** One realtime socket for the signed-in console: every channel its ticket allows. */
export function LiveProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [store] = useState(() => {
    let feed: LiveFeed = { events: [], connected: false };
    const listeners = new Set<() => void>();
    return {
      read: () => feed,
      set(next: LiveFeed) {
        feed = next;
        for (const listener of listeners) listener();
      },
      subscribe(listener: () => void) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
  });

  useEffect(() => {
    const connection = connectRealtime(api);
    const seen = new Set<number>();
    const offEvent = connection.on('event', (frame) => {
      // One event may come on the dashboard and on its area's or an alert channel: refetch once.
      if (!seen.has(frame.id)) {
        seen.add(frame.id);
        if (seen.size > SEEN_SIZE) seen.delete(seen.values().next().value as number);
        const area = frame.name.includes('.') ? frame.name.slice(0, frame.name.indexOf('.')) : frame.name;
        for (const queryKey of STALE_BY_AREA[area] ?? []) void queryClient.invalidateQueries({ queryKey });
      }
      // Only the dashboard's events make the feed.
      if (frame.channel !== 'dashboard') return;
      const current = store.read();
      store.set({ ...current, events: [frame, ...current.events].slice(0, FEED_SIZE) });
    });
    const offSubscribed = connection.on('subscribed', () => store.set({ ...store.read(), connected: true }));
    const offClose = connection.on('close', () => store.set({ ...store.read(), connected: false }));
    return () => {
      offEvent();
      offSubscribed();
      offClose();
      connection.close();
    };
  }, [queryClient, store]);

  return <LiveContext.Provider value={store}>{children}</LiveContext.Provider>;
}

export function useLiveFeed(): LiveFeed {
  const store = useContext(LiveContext);
  if (store === null) throw new Error('useLiveFeed outside LiveProvider');
  return useSyncExternalStore(store.subscribe, store.read);
}
