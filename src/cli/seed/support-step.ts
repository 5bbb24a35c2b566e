import { SupportAttachments } from '../../modules/files/index.js';
import { MySupportService } from '../../modules/support/player-service.js';
import { SupportDeskService } from '../../modules/support/staff-service.js';
import { playerActor, staffActor, type SeedContext } from './context.js';
import { ticketExists } from './queries.js';

const AGENTS = ['priya.support.demo@example.com', 'lena.support.demo@example.com'];

interface DemoTicket {
  subject: string;
  category: 'account' | 'billing' | 'technical' | 'abuse' | 'other';
  message: string;
  reply?: string;
  followUp?: string;
  close?: boolean;
}

const TICKETS: DemoTicket[] = [
  {
    subject: 'Session froze after ten minutes',
    category: 'technical',
    message: 'Starfall Raiders froze and I lost my run. Chrome on Windows.',
    reply: 'Sorry about that! We saw a node restart at that time. Could you try again?',
    followUp: 'Works now, thanks.',
    close: true,
  },
  {
    subject: 'Charged twice for Plus',
    category: 'billing',
    message: 'My card shows two charges for this month.',
    reply: 'One of them is a pending authorisation and will drop off within a few days.',
  },
  { subject: 'How do I change my display name?', category: 'account', message: 'I cannot find the setting.' },
  {
    subject: 'Player cheating in Vortex Arena',
    category: 'abuse',
    message: 'Someone keeps teleporting across the map.',
    reply: 'Thanks for the report, we are looking into it.',
    close: true,
  },
  { subject: 'Controller not detected', category: 'technical', message: 'My gamepad works elsewhere but not here.' },
  {
    subject: 'Refund for credits',
    category: 'billing',
    message: 'I bought the wrong pack, can I swap it?',
    reply: 'Done: we refunded the pack, buy the one you wanted whenever you like.',
    close: true,
  },
  { subject: 'Lag in the evening', category: 'technical', message: 'Every evening around 8 pm the stream stutters.' },
  { subject: 'Feature request: friends list', category: 'other', message: 'Would love to see what my friends play.' },
  {
    subject: 'Cannot sign in with Discord',
    category: 'account',
    message: 'The Discord button loops back to the sign-in page.',
    reply: 'Could you tell us which browser you use?',
  },
  { subject: 'Achievements not unlocking', category: 'technical', message: 'I played ten sessions but no badge.' },
];

/** Tickets opened by players (each with its confirmation mail), some answered by the agents, some closed. */
export async function seedSupport(context: SeedContext): Promise<void> {
  const { platform, tally, players, random } = context;
  const attachments = new SupportAttachments(platform.db, platform.storage);
  const mine = new MySupportService(platform.db, platform.write, attachments);
  const desk = new SupportDeskService(platform.db, platform.write, attachments);
  const authors = random.sample(players, TICKETS.length);
  for (const [index, ticket] of TICKETS.entries()) {
    const player = authors[index]!;
    const agent = staffActor(context, AGENTS[index % AGENTS.length]!);
    const exists = await ticketExists(platform.db, player.id, ticket.subject);
    tally.count('support tickets', !exists);
    if (exists) continue;
    const opened = await mine.open(playerActor(context, player), {
      subject: ticket.subject,
      category: ticket.category,
      message: ticket.message,
    });
    if (ticket.reply !== undefined) await desk.reply(agent, opened.id, { message: ticket.reply });
    if (ticket.followUp !== undefined)
      await mine.addMessage(playerActor(context, player), opened.id, { message: ticket.followUp });
    if (ticket.close) await desk.close(agent, opened.id, 'resolved');
  }
}
