import { instantOf } from '../../ui/time';

/** The users-list filters a broadcast takes (the API's segment), as the form holds them. */
export interface SegmentForm {
  q: string;
  status: string;
  tier: string;
  role: string;
  provider: string;
  has_subscription: string;
  created_from: string;
  created_to: string;
  last_seen_from: string;
  last_seen_to: string;
}

export const EMPTY_SEGMENT: SegmentForm = {
  q: '',
  status: '',
  tier: '',
  role: '',
  provider: '',
  has_subscription: '',
  created_from: '',
  created_to: '',
  last_seen_from: '',
  last_seen_to: '',
};

type Status = 'active' | 'banned' | 'deleted';

/** The segment as the API takes it: empty fields left out, times as instants. */
export function segmentOf(form: SegmentForm) {
  const text = (value: string) => (value.trim() === '' ? undefined : value.trim());
  const segment = {
    q: text(form.q),
    status: form.status === '' ? undefined : (form.status as Status),
    tier: text(form.tier),
    role: text(form.role),
    provider: text(form.provider),
    has_subscription: form.has_subscription === '' ? undefined : form.has_subscription === 'true',
    created_from: instantOf(form.created_from),
    created_to: instantOf(form.created_to),
    last_seen_from: instantOf(form.last_seen_from),
    last_seen_to: instantOf(form.last_seen_to),
  };
  return Object.fromEntries(Object.entries(segment).filter(([, value]) => value !== undefined)) as Partial<
    typeof segment
  >;
}

/** A segment in words, for the history and the confirmation ("tier gold, has a subscription"). */
export function describeSegment(segment: Record<string, unknown>): string {
  const parts = Object.entries(segment)
    .filter(([, value]) => value !== undefined && value !== null && value !== '')
    .map(([key, value]) => {
      if (key === 'has_subscription') return value ? 'has a subscription' : 'no subscription';
      if (key === 'q') return `matching “${String(value)}”`;
      return `${key.replace(/_/g, ' ')} ${String(value)}`;
    });
  return parts.length === 0 ? 'Every active user' : parts.join(', ');
}
