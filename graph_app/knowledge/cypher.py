"""Cypher used by the graph store. Values are always parameters (``$name``); the only
formatted parts are labels and relationship types, and only after
:func:`graph_app.knowledge.identifiers.checked_label` / ``checked_rel_type`` passed them.
"""

PING = "RETURN 1 AS ok"

# The columns of an entity ``n`` (``domain.Entity``): every property but the embedding, as
# [key, value] pairs, and the embedding's dimension apart (vectors stay in Neo4j).
ENTITY_COLUMNS = """elementId(n) AS id, labels(n) AS labels,
       [k IN keys(n) WHERE k <> 'embedding' | [k, n[k]]] AS props,
       size(n.embedding) AS embedding_dimension"""

COUNT_BY_LABEL = """
MATCH (n)
WHERE NOT n:Source
UNWIND labels(n) AS label
RETURN label, count(*) AS n
ORDER BY n DESC, label
"""

COUNT_BY_REL_TYPE = """
MATCH (a)-[r]->(b)
WHERE NOT a:Source AND NOT b:Source
RETURN type(r) AS type, count(*) AS n
ORDER BY n DESC, type
"""

# The relationships COUNT_BY_REL_TYPE counts, in keyset pages by element id. {rel_type} is
# "" (every type) or ":" and a checked relationship type.
LIST_RELATIONSHIPS = """
MATCH (a)-[r{rel_type}]->(b)
WHERE NOT a:Source AND NOT b:Source AND ($after IS NULL OR elementId(r) > $after)
RETURN elementId(r) AS id, type(r) AS type,
       [l IN labels(a) WHERE l <> 'Source'][0] AS start_label, a.name AS start_name,
       [l IN labels(b) WHERE l <> 'Source'][0] AS end_label, b.name AS end_name
ORDER BY id
LIMIT $limit
"""

COUNT_SOURCES = "MATCH (s:Source) RETURN count(s) AS n"

COUNT_ORPHANS = """
MATCH (n)
WHERE NOT n:Source AND NOT EXISTS { (n)--(m) WHERE NOT m:Source }
RETURN count(n) AS n
"""

COUNT_ENTITIES = "MATCH (n) WHERE NOT n:Source RETURN count(n) AS n"

DELETE_ALL = "MATCH (n) DETACH DELETE n"

# {label} is a checked label. $rows: [{name, props}]
MERGE_ENTITIES = """
UNWIND $rows AS row
MERGE (e:{label} {{name: row.name}})
ON CREATE SET e += row.props
RETURN count(e) AS n
"""

# {label_a}, {label_b}, {rel_type} are checked; entities are matched by (label, name).
# $rows: [{a, b, props}]
MERGE_RELATIONSHIPS = """
UNWIND $rows AS row
MATCH (a:{label_a} {{name: row.a}})
MATCH (b:{label_b} {{name: row.b}})
MERGE (a)-[r:{rel_type}]->(b)
ON CREATE SET r += row.props
RETURN count(r) AS n
"""

# {label} is a checked label. EVIDENCES is merged on rel_source and rel_type, as the agent
# merges it: one Source can evidence several relationships of one entity.
MERGE_SOURCE_PROVENANCE = """
MERGE (s:Source {{source_id: $source_id}})
ON CREATE SET s += $props
WITH s
MATCH (e:{label} {{name: $name}})
MERGE (e)-[:EXTRACTED_FROM]->(s)
MERGE (s)-[:EVIDENCES {{rel_source: $rel_source, rel_type: $rel_type}}]->(e)
"""

# Entities whose name or an alias appears in $text (case-insensitive), most mentioned first,
# each with a few of its relationships.
ENTITIES_MENTIONED_IN = """
MATCH (e)
WHERE NOT e:Source AND e.name IS NOT NULL AND size(e.name) >= 3
  AND (toLower($text) CONTAINS toLower(e.name)
       OR any(a IN coalesce(e.aliases, []) WHERE size(a) >= 3
              AND toLower($text) CONTAINS toLower(a)))
WITH e ORDER BY coalesce(e.mention_count, 0) DESC, e.name LIMIT $limit
OPTIONAL MATCH (e)-[r]-(o) WHERE NOT o:Source
WITH e, collect({type: type(r), other: o.name, outgoing: startNode(r) = e})[0..5] AS rels
RETURN labels(e)[0] AS label, e.name AS name, e.description AS description, rels
"""

ORPHANS = """
MATCH (n)
WHERE NOT n:Source AND NOT EXISTS { (n)--(m) WHERE NOT m:Source }
RETURN elementId(n) AS id, labels(n)[0] AS label, n.name AS name
ORDER BY label, name
LIMIT $limit
"""

# Entities whose embedding is missing or not $dim long.
ENTITIES_TO_EMBED = """
MATCH (n)
WHERE NOT n:Source AND n.name IS NOT NULL
  AND (n.embedding IS NULL OR size(n.embedding) <> $dim)
RETURN elementId(n) AS id, labels(n)[0] AS label, n.name AS name,
       coalesce(n.description, '') AS description, n.embedding AS embedding
LIMIT $limit
"""

SET_EMBEDDINGS = """
UNWIND $rows AS row
MATCH (n) WHERE elementId(n) = row.id
SET n.embedding = row.embedding
RETURN count(n) AS n
"""

# {key} is one of ENTITY_SORT_KEYS (a constant, never user text). $q is lower-cased.
LIST_ENTITIES = (
    """
MATCH (n)
WHERE NOT n:Source
  AND ($label IS NULL OR $label IN labels(n))
  AND ($q IS NULL OR toLower(n.name) CONTAINS $q
       OR any(a IN coalesce(n.aliases, []) WHERE toLower(a) CONTAINS $q))
WITH n, {key} AS key
WHERE $after_key IS NULL OR key < $after_key
   OR (key = $after_key AND elementId(n) < $after_id)
RETURN """
    + ENTITY_COLUMNS
    + """, key
ORDER BY key DESC, id DESC
LIMIT $limit
"""
)

ENTITY_SORT_KEYS = {
    "mentions": "coalesce(n.mention_count, 0)",
    "first_seen": "toString(coalesce(n.first_seen, datetime('0001-01-01T00:00:00Z')))",
    "last_seen": "toString(coalesce(n.last_seen, datetime('0001-01-01T00:00:00Z')))",
}

# Entities by (label, name): the label is a parameter here, compared with labels(n).
GET_ENTITY = (
    """
MATCH (n)
WHERE NOT n:Source AND $label IN labels(n) AND n.name = $name
RETURN """
    + ENTITY_COLUMNS
)

ENTITY_RELATIONSHIPS = """
MATCH (n) WHERE elementId(n) = $id
MATCH (n)-[r]-(o)
WHERE NOT o:Source
RETURN elementId(r) AS id, type(r) AS type, startNode(r) = n AS outgoing,
       labels(o)[0] AS other_label, o.name AS other_name, properties(r) AS props
ORDER BY type, other_name
LIMIT $limit
"""

ENTITY_PROVENANCE = """
MATCH (n) WHERE elementId(n) = $id
MATCH (n)-[:EXTRACTED_FROM]->(s:Source)
RETURN elementId(s) AS id, s.source_id AS source_id, properties(s) AS props
ORDER BY source_id
LIMIT $limit
"""

ENTITY_EMBEDDINGS = """
MATCH (n)
WHERE NOT n:Source AND n.embedding IS NOT NULL
RETURN elementId(n) AS id, labels(n)[0] AS label, n.name AS name,
       n.description AS description, coalesce(n.mention_count, 0) AS mentions,
       n.embedding AS embedding
"""

# Neighbours of the nodes $ids (entities only), most mentioned first, leaving out $exclude.
NEIGHBOURS = """
MATCH (n)-[]-(m)
WHERE elementId(n) IN $ids AND NOT m:Source AND NOT elementId(m) IN $exclude
WITH DISTINCT m
RETURN elementId(m) AS id, labels(m)[0] AS label, m.name AS name,
       coalesce(m.mention_count, 0) AS mentions
ORDER BY mentions DESC, name, id
SKIP $skip
LIMIT $limit
"""

COUNT_NEIGHBOURS = """
MATCH (n)-[]-(m)
WHERE elementId(n) IN $ids AND NOT m:Source AND NOT elementId(m) IN $exclude
RETURN count(DISTINCT m) AS n
"""

# How many distinct entity neighbours each of $ids has (for "N more" on a node).
DEGREES = """
MATCH (n) WHERE elementId(n) IN $ids
OPTIONAL MATCH (n)--(m) WHERE NOT m:Source
RETURN elementId(n) AS id, count(DISTINCT m) AS degree
"""

# Relationships among $ids (at most $limit): the edges of a neighbourhood.
EDGES_AMONG = """
MATCH (a)-[r]->(b)
WHERE elementId(a) IN $ids AND elementId(b) IN $ids
RETURN elementId(r) AS id, elementId(a) AS source, elementId(b) AS target, type(r) AS type
LIMIT $limit
"""

SOURCES_OF = """
MATCH (n)-[:EXTRACTED_FROM]->(s:Source)
WHERE elementId(n) = $id
RETURN elementId(s) AS id, s.source_id AS source_id, properties(s) AS props
ORDER BY source_id
LIMIT $limit
"""

# The entity of $label that holds $alias among its aliases (a renamed entity keeps its old
# name there), most mentioned first. Both are parameters.
ENTITY_NAME_FOR_ALIAS = """
MATCH (n)
WHERE $label IN labels(n) AND NOT n:Source AND $alias IN coalesce(n.aliases, [])
RETURN n.name AS name
ORDER BY coalesce(n.mention_count, 0) DESC, n.name
LIMIT 1
"""
