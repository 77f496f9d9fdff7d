// Claim the store for a load: set the writer if it is still $expected ('' for
// none); returns the writer now recorded
MERGE (m:Meta {key: 'graphprum'})
WITH m, coalesce(m.writer, '') AS current
SET m.writer = CASE WHEN current = $expected THEN $writer ELSE m.writer END,
    m.beat = CASE WHEN current = $expected THEN $now ELSE m.beat END
RETURN m.writer AS writer
