"""Authenticators: each turns a request credential (client cert, token) into a UserInfo, or passes."""
