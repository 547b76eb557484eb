"""``herdsman serve``: the workbench in a browser.

A local web application (Starlette, served by uvicorn; plain JavaScript modules from
``static/``, no build step) where a person picks a bundled example or pastes a litmus
test or a C program, picks or edits a model, runs it on any engine and sees herd's block
(or GenMC's report), the final states and every execution drawn; explains a state,
diffs two models on bundled tests, and shares a permalink.

The server runs nothing but herdsman's own engines, each job in a worker process it can
kill (:mod:`.processes`), within a time and a memory limit; it reads no file but the
bundled examples and the built-in models (:mod:`.examples`).  What a job does is
:mod:`.work` (the pipeline, ``explain`` and ``diff`` through their public functions);
:mod:`.request` checks what the browser asks; :mod:`.app` is the web application.
"""
