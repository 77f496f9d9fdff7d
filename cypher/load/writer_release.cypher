MATCH (m:Meta {key: 'graphprum'})
WHERE m.writer = $writer
SET m.writer = null, m.beat = null
