"""Ways to look at graphs and values: text, Graphviz DOT, TensorBoard, summaries."""
