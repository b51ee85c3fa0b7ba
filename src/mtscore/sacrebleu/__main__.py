"""``python -m mtscore.sacrebleu`` (with the shim: ``python -m sacrebleu``): sacreBLEU's command line."""
from mtscore.sacrebleu.sacrebleu import main

if __name__ == "__main__":
    main()
