import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { AppError, invalidState, notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import type { Writes } from '../../../kernel/write.js';
import {
  invalidDetails,
  MAX_AUDIENCE_MEMBERS,
  readCsvMembers,
  readListedMembers,
  resolveMembers,
  userIdsOf,
} from './member-list.js';
import {
  campaignUnderWayTo,
  countMembers,
  deleteAudience,
  deleteMember,
  findAudience,
  insertAudience,
  listAudiences,
  listMembers,
  lockAudience,
  previewCount,
  replaceMembers,
  touchAudience,
  updateAudience,
  userEmails,
} from './queries.js';
import type {
  AudienceView,
  CreateAudienceInput,
  ListAudiencesQuery,
  ListMembersQuery,
  ReplaceMembersInput,
  UpdateAudienceInput,
} from './schemas.js';
import { audienceMemberPicture, audiencePicture } from './audit-picture.js';

const TARGET = 'email_audience';

/**
 * Email audiences: named address lists campaigns are sent to. Every write locks the audience row
 * first, so a member replace and an edit or delete of the same audience run one after the other.
 * Unknown audiences are 404 `not_found`, except on operation 9 where the spec names `audience`.
 */
export class EmailAudiencesService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
  ) {}

  async list(query: ListAudiencesQuery) {
    const { rows, total } = await listAudiences(this.db, query);
    return paged(rows, query, total);
  }

  async get(id: string): Promise<AudienceView> {
    const audience = await findAudience(this.db, id);
    if (audience === undefined) throw notFound();
    return audience;
  }

  async create(actor: Actor, input: CreateAudienceInput): Promise<AudienceView> {
    const { id } = await this.write(actor, async (w) => {
      const row = await insertAudience(w.trx, input, actor.userId);
      await w.auditRow(audiencePicture, {
        action: 'email.audience.create',
        targetType: TARGET,
        targetId: row.id,
        after: { ...input, description: input.description ?? null },
      });
      return row;
    });
    return this.get(id);
  }

  /** Replaces name and description; a body that changes nothing writes and audits nothing. */
  async update(actor: Actor, id: string, input: UpdateAudienceInput): Promise<AudienceView> {
    await this.write(actor, async (w) => {
      const current = await lockAudience(w.trx, id);
      if (current === undefined) throw notFound();
      const wanted = { name: input.name, description: input.description ?? null };
      const { before, after, changed } = audiencePicture.changes(current, wanted, { whole: true });
      if (changed.length === 0) return;
      await updateAudience(w.trx, id, input, actor.userId);
      await w.audit({ action: 'email.audience.update', targetType: TARGET, targetId: id, before, after });
    });
    return this.get(id);
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await this.write(actor, async (w) => {
      if ((await lockAudience(w.trx, id)) === undefined) throw notFound();
      const memberCount = await countMembers(w.trx, id);
      const removed = (await deleteAudience(w.trx, id))!;
      await w.auditRow(audiencePicture, {
        action: 'email.audience.delete',
        targetType: TARGET,
        targetId: id,
        before: { ...removed, member_count: memberCount },
      });
    });
  }

  async listMembers(id: string, query: ListMembersQuery) {
    if ((await findAudience(this.db, id)) === undefined) throw notFound();
    const { rows, total } = await listMembers(this.db, id, query);
    return paged(rows, query, total);
  }

  async removeMember(actor: Actor, id: string, memberId: string): Promise<void> {
    await this.write(actor, async (w) => {
      if ((await lockAudience(w.trx, id)) === undefined) throw notFound();
      const removed = await deleteMember(w.trx, id, memberId);
      if (removed === undefined) throw notFound();
      await touchAudience(w.trx, id, actor.userId);
      await w.auditRow(audienceMemberPicture, {
        action: 'email.audience.member.remove',
        targetType: TARGET,
        targetId: id,
        before: removed,
      });
    });
  }

  async previewCount(id: string) {
    if ((await findAudience(this.db, id)) === undefined) throw notFound();
    return previewCount(this.db, id);
  }

  /**
   * Operation 9: replaces the whole list in one transaction, or changes nothing. Refusals in
   * order: 404 `audience`; 422 `invalid_state` (a campaign to it is sending or paused); 400
   * `validation_failed` (any refused CSV row or user); 422 `too_many_members` (more than 50,000
   * distinct addresses).
   */
  async replaceMembers(actor: Actor, id: string, input: ReplaceMembersInput): Promise<{ count: number }> {
    // Parsing and checking addresses needs no database: done before the transaction starts (a CSV
    // is read in stretches that let other requests in, see readCsvMembers).
    const read = input.csv !== undefined ? await readCsvMembers(input.csv) : readListedMembers(input.members ?? []);
    return this.write(actor, async (w) => {
      if ((await lockAudience(w.trx, id)) === undefined) throw notFound('audience');
      await refuseWhileSending(w.trx, id);
      const { members, invalidUsers } = resolveMembers(
        read.candidates,
        await userEmails(w.trx, userIdsOf(read.candidates)),
      );
      if (read.invalidRowCount > 0 || invalidUsers.length > 0) {
        throw new AppError(400, 'validation_failed', invalidDetails(read, invalidUsers));
      }
      if (members.length > MAX_AUDIENCE_MEMBERS) {
        throw new AppError(422, 'too_many_members', { max: MAX_AUDIENCE_MEMBERS });
      }
      const before = await countMembers(w.trx, id);
      const { removed } = await replaceMembers(w.trx, id, members);
      await touchAudience(w.trx, id, actor.userId);
      await w.audit({
        action: 'email.audience.members.replace',
        targetType: TARGET,
        targetId: id,
        extra: {
          source: read.source,
          count: members.length,
          before_count: before,
          removed,
          added: members.length - (before - removed),
        },
      });
      return { count: members.length };
    });
  }
}

/**
 * The spec's 422 `invalid_state` for operation 9: no replacing the list while a campaign to it is
 * under way (sending or paused). Its recipients were fixed at launch, but staff changing the list
 * mid-send would reasonably expect the change to reach that campaign, and it would not.
 */
async function refuseWhileSending(trx: Kysely<Tables>, audienceId: string): Promise<void> {
  const running = await campaignUnderWayTo(trx, audienceId);
  if (running !== undefined)
    throw invalidState({
      reason: 'a campaign to this audience is under way',
      campaign_id: running.id,
      campaign_status: running.status,
    });
}
