#!/bin/sh
# One replica: the app in the foreground (exec: the container's stop signal reaches Streamlit), and beside it one
# opening of every interactive page's default view as soon as the server answers (deploy/warm.py), so the first
# visitors do not wait for the imports, the compiled kernels and the shared Monte-Carlo runs.
python deploy/warm.py http://127.0.0.1:8501 &
exec streamlit run app.py --server.address=0.0.0.0 --server.port=8501
