import type { ColumnType } from 'kysely';

/** Column shapes shared by every table: how each is read, inserted and updated. */

/** timestamptz NOT NULL without a default: read as a Date, written as a Date or ISO string. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** timestamptz NOT NULL DEFAULT now(): may be left out on insert. */
export type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** timestamptz NULL. */
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** jsonb: read parsed, always written as JSON text (so arrays never become Postgres arrays). */
export type Json = ColumnType<unknown, string, string>;
/** jsonb NOT NULL with a database default: may be left out on insert. */
export type DefaultedJson = ColumnType<unknown, string | undefined, string>;
/** A column with a database default. */
export type Defaulted<T> = ColumnType<T, T | undefined, T>;
