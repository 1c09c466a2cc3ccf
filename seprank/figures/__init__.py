"""Every figure: the paper figures, the transition figure, captions and one style."""
