"""What user code calls to talk to AutoGraph: directives (``set_loop_options``,
``set_element_type``) and special functions (``stack``, ``trace``)."""
