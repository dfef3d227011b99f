"""Runnable examples of controllers built on kubelite.client (`python -m kubelite.client.examples.<name>`)."""
