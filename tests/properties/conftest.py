from seprank.testing import register_profiles

PROFILE = register_profiles()
