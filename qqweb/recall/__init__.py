"""Memory tests: pinned recalls ("when the agent is asked Q, it must recall this"), run
with each agent's own retrieval, and the effect of a curation plan on them."""
