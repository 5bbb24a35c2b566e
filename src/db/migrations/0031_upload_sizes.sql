-- The object's size as checked when an upload was confirmed (shown with a support attachment).
ALTER TABLE storage_uploads ADD COLUMN size integer CHECK (size >= 0);
