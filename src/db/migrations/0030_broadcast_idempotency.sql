-- Operation 19 with an Idempotency-Key: the key (per staff member) and a hash of the request are
-- kept on the broadcast, written in its transaction, so a repeat answers it instead of sending again.
ALTER TABLE notification_broadcasts ADD COLUMN idempotency_key text CHECK (char_length(idempotency_key) BETWEEN 1 AND 200);
ALTER TABLE notification_broadcasts ADD COLUMN request_fingerprint text;
ALTER TABLE notification_broadcasts ADD CONSTRAINT notification_broadcasts_idempotency_pair CHECK ((idempotency_key IS NULL) = (request_fingerprint IS NULL));
CREATE UNIQUE INDEX notification_broadcasts_idempotency_idx ON notification_broadcasts (created_by, idempotency_key) WHERE idempotency_key IS NOT NULL;
